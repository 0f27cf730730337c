use super::*;
use crate::fixtures::{bytes, vectors};

/// The id every call below names.
const ID: &[u8] = b"JOB0Nb1VTbfnu4";

/// A call's arguments: the id, then `0` for every other argument.
fn call_args(layout: &Layout) -> Vec<&'static [u8]> {
    std::iter::once(ID)
        .chain(std::iter::repeat(&b"0"[..]))
        .take(layout.args.len())
        .collect()
}

fn spec_name(spec: KeySpec) -> String {
    match spec {
        KeySpec::Queue(t) => String::from_utf8(t.to_vec()).unwrap(),
        KeySpec::Row => "job:<id>".into(),
    }
}

#[test]
fn the_declared_lists_match_the_shared_vectors() {
    let verbs = vectors()["verbs"].as_array().unwrap();
    assert_eq!(verbs.len(), LAYOUTS.len());
    for (v, layout) in verbs.iter().zip(LAYOUTS) {
        assert_eq!(v["verb"], layout.verb);
        assert_eq!(v["script"], layout.script());
        let keys: Vec<String> = layout.keys.iter().map(|&s| spec_name(s)).collect();
        assert_eq!(v["keys"], serde_json::json!(keys), "{}", layout.verb);
        assert_eq!(v["args"], serde_json::json!(layout.args), "{}", layout.verb);
    }
}

#[test]
fn the_layout_vectors_give_their_exact_messages() {
    for v in vectors()["layout"].as_array().unwrap() {
        let layout = by_verb(v["verb"].as_str().unwrap()).unwrap();
        let keys: Vec<Vec<u8>> = v["keys"].as_array().unwrap().iter().map(bytes).collect();
        let args: Vec<Vec<u8>> = v["args"].as_array().unwrap().iter().map(bytes).collect();
        let key_refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let arg_refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
        let verdict = layout
            .check_key_count(keys.len() as i64)
            .and_then(|()| layout.check(&key_refs, &arg_refs));
        match v["error"].as_str() {
            None => {
                let queue = verdict.unwrap_or_else(|e| panic!("{v}: refused with {e}"));
                assert_eq!(queue.name(), bytes(&v["queue"]).as_slice(), "{v}");
            }
            Some(message) => {
                assert_eq!(verdict.unwrap_err().to_string(), message, "{v}");
            }
        }
    }
}

#[test]
fn a_valid_call_passes_for_every_verb_and_name() {
    for name in vectors()["queueNames"]["valid"].as_array().unwrap() {
        let q = bytes(name);
        for layout in LAYOUTS {
            let keys: Vec<Vec<u8>> = (0..layout.numkeys())
                .map(|i| layout.expected_key(i, &q, ID))
                .collect();
            let key_refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
            let args = call_args(layout);
            assert_eq!(layout.check(&key_refs, &args), Ok(Queue::new(&q)));
            // …and on the accepted path, not by the refusal's walk finding no difference.
            let id = layout.row_id(&args);
            assert!(layout.all_match(key_refs[0], &Queue::new(&q), &key_refs, id));
        }
    }
}

#[test]
fn every_single_byte_change_is_caught() {
    let q = b"orders".to_vec();
    for layout in LAYOUTS {
        let keys: Vec<Vec<u8>> = (0..layout.numkeys())
            .map(|i| layout.expected_key(i, &q, ID))
            .collect();
        let args = call_args(layout);
        for pos in 0..keys.len() {
            for offset in 0..keys[pos].len() {
                let mut bent = keys.clone();
                bent[pos][offset] ^= 0x01;
                let refs: Vec<&[u8]> = bent.iter().map(Vec::as_slice).collect();
                assert!(
                    layout.check(&refs, &args).is_err(),
                    "{} key {} byte {offset}",
                    layout.verb,
                    pos + 1
                );
            }
        }
    }
}

#[test]
fn the_check_reads_its_queue_with_from_key_and_nothing_else() {
    // Whatever key 1 holds, the check's queue is `Queue::from_key`'s, and a key 1 that
    // `from_key` refuses is refused as key 1 (the empty name by its own message).
    let mut firsts: Vec<Vec<u8>> = vectors()["layout"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| bytes(&v["keys"][0]))
        .collect();
    firsts.extend(
        [
            &b"emq:{}:pending"[..],
            b"emq:",
            b"{emq}:version",
            b"emq:{ab}}:x",
            b"",
        ]
        .map(<[u8]>::to_vec),
    );
    for layout in LAYOUTS {
        let args = call_args(layout);
        for first in &firsts {
            let Ok(queue) = Queue::from_key(first) else {
                let mut keys = vec![first.clone()];
                keys.extend((1..layout.numkeys()).map(|i| layout.expected_key(i, b"q", ID)));
                let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
                match layout.check(&refs, &args).unwrap_err() {
                    LayoutError::EmptyName => {
                        assert_eq!(Queue::from_key(first), Err(QueueKeyError::EmptyName))
                    }
                    LayoutError::Differs { pos, .. } => assert_eq!(pos, 1, "{first:?}"),
                    other => panic!("{other}"),
                }
                continue;
            };
            let keys: Vec<Vec<u8>> = (0..layout.numkeys())
                .map(|i| layout.expected_key(i, queue.name(), ID))
                .collect();
            let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
            assert_eq!(
                layout.check(&refs, &args).map(|q| q.name()),
                Ok(queue.name())
            );
        }
    }
}

#[test]
fn from_key_is_what_every_command_runs() {
    // The page shows `Queue::from_key` as the module's check: it must be built into the module
    // (not under `cfg(test)`), be the only reader of a queue name, and be what `admit` reaches.
    let keyspace = include_str!("../keyspace.rs");
    let from_key = keyspace
        .find("pub fn from_key")
        .expect("Queue::from_key exists");
    let impl_at = keyspace[..from_key].rfind("impl<'a> Queue<'a>").unwrap();
    assert!(!keyspace[..impl_at].trim_end().ends_with("#[cfg(test)]"));
    assert!(
        !keyspace.contains("fn queue_name("),
        "one reader of a queue name"
    );
    let check = include_str!("../layout.rs");
    let body = &check[check.find("pub fn check<").unwrap()..];
    let body = &body[..body.find("\n    }\n").unwrap()];
    assert!(body.contains("let first = keys[0].bytes();"));
    assert!(body.contains("Queue::from_key(first)"));
    assert!(include_str!("../commands/mod.rs").contains(".check(keys, args)"));
}

#[test]
fn key_count_refusal_names_both_counts() {
    assert_eq!(
        CLAIM.check_key_count(2).unwrap_err().to_string(),
        "EMQKEY EMQ.CLAIM expects 3 keys but found 2"
    );
    assert_eq!(
        RETRY.check_key_count(-1).unwrap_err().to_string(),
        "EMQKEY EMQ.RETRY expects 5 keys but found -1"
    );
    assert!(REAP.check_key_count(3).is_ok());
}
