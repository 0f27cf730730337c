//! The layout check: the queue read from key 1 by `Queue::from_key`, then every declared key compared
//! byte for byte with the key that queue gives, before anything is read or written.
//!
//! Each verb's declared key list is pinned here once (the same lists the scripts declare), so the
//! module can never open a key a host did not declare in the expected place.

use crate::keyspace::{self, first_difference, Queue, QueueKeyError};
use crate::wire::quote;
use std::fmt;

/// What the check reads a key or an argument as: a test's byte strings, or the strings a command
/// arrived with (compared where they lie, never copied).
pub trait Bytes {
    fn bytes(&self) -> &[u8];
}

impl Bytes for &[u8] {
    fn bytes(&self) -> &[u8] {
        self
    }
}

/// One declared key of a verb.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySpec {
    /// `queue_key(q, type)`; the row base is `Queue(b"job:")`.
    Queue(&'static [u8]),
    /// The job row `row-base .. id`, where the id is the verb's first argument.
    Row,
}

/// A verb's declared keys and arguments, in wire order.
#[derive(Debug)]
pub struct Layout {
    pub verb: &'static str,
    /// The script of the same transition, held to the shared vectors by the tests.
    #[cfg(test)]
    pub script: &'static str,
    pub keys: &'static [KeySpec],
    pub args: &'static [&'static str],
}

use KeySpec::{Queue as Q, Row};

pub const ENQUEUE: Layout = Layout {
    verb: "EMQ.ENQUEUE",
    #[cfg(test)]
    script: "enqueue-2.lua",
    keys: &[Row, Q(b"pending")],
    args: &["id", "payload"],
};

pub const SCHEDULE: Layout = Layout {
    verb: "EMQ.SCHEDULE",
    #[cfg(test)]
    script: "schedule-2.lua",
    keys: &[Row, Q(b"schedule")],
    args: &["id", "payload", "run_at_ms"],
};

pub const CLAIM: Layout = Layout {
    verb: "EMQ.CLAIM",
    #[cfg(test)]
    script: "claim-3.lua",
    keys: &[Q(b"pending"), Q(b"active"), Q(keyspace::ROW_TYPE)],
    args: &["lease_ms"],
};

pub const COMPLETE: Layout = Layout {
    verb: "EMQ.COMPLETE",
    #[cfg(test)]
    script: "complete-3.lua",
    keys: &[Q(b"active"), Row, Q(b"metrics:completed")],
    args: &["id", "token"],
};

pub const RETRY: Layout = Layout {
    verb: "EMQ.RETRY",
    #[cfg(test)]
    script: "retry-5.lua",
    keys: &[
        Q(b"active"),
        Q(b"schedule"),
        Q(b"dead"),
        Row,
        Q(b"metrics:failed"),
    ],
    args: &["id", "token", "delay_ms", "max_attempts", "error"],
};

pub const PROMOTE: Layout = Layout {
    verb: "EMQ.PROMOTE",
    #[cfg(test)]
    script: "promote-3.lua",
    keys: &[Q(b"schedule"), Q(b"pending"), Q(keyspace::ROW_TYPE)],
    args: &["batch"],
};

pub const REAP: Layout = Layout {
    verb: "EMQ.REAP",
    #[cfg(test)]
    script: "reap-3.lua",
    keys: &[Q(b"active"), Q(b"pending"), Q(keyspace::ROW_TYPE)],
    args: &["batch"],
};

/// Every native verb, in the order `lib.rs` registers them.
#[cfg(test)]
pub const LAYOUTS: [&Layout; 7] = [
    &ENQUEUE, &SCHEDULE, &CLAIM, &COMPLETE, &RETRY, &PROMOTE, &REAP,
];

#[cfg(test)]
pub fn by_verb(verb: &str) -> Option<&'static Layout> {
    LAYOUTS
        .iter()
        .copied()
        .find(|l| l.verb.eq_ignore_ascii_case(verb))
}

/// A refusal of the layout check; `Display` gives the exact `EMQKEY` message of `docs/wire.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutError {
    KeyCount {
        verb: &'static str,
        expected: usize,
        found: i64,
    },
    /// Key `pos` (1-based) differs from the expected key at byte `offset` (0-based).
    Differs {
        pos: usize,
        offset: usize,
        expected: Vec<u8>,
        found: Vec<u8>,
    },
    EmptyName,
}

impl LayoutError {
    /// Key `pos` is not the expected key (given as its parts) from byte `offset` on.
    fn differs(pos: usize, offset: usize, expected: &[&[u8]], found: &[u8]) -> Self {
        LayoutError::Differs {
            pos,
            offset,
            expected: expected.concat(),
            found: found.to_vec(),
        }
    }
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::KeyCount {
                verb,
                expected,
                found,
            } => write!(f, "EMQKEY {verb} expects {expected} keys but found {found}"),
            LayoutError::Differs {
                pos,
                offset,
                expected,
                found,
            } => write!(
                f,
                "EMQKEY key {pos} differs at byte {offset}: expected {} but found {}",
                quote(expected),
                quote(found)
            ),
            LayoutError::EmptyName => f.write_str(
                "EMQKEY key 1 has an empty queue name at byte 5: \
                 expected at least one byte between '{' and '}'",
            ),
        }
    }
}

impl Layout {
    pub fn numkeys(&self) -> usize {
        self.keys.len()
    }

    /// The declared key count must be the verb's own: the key positions the command registered
    /// (first 2, last 1 + numkeys) are what ACLs and `COMMAND GETKEYS` see.
    pub fn check_key_count(&self, found: i64) -> Result<(), LayoutError> {
        if usize::try_from(found) == Ok(self.numkeys()) {
            Ok(())
        } else {
            Err(LayoutError::KeyCount {
                verb: self.verb,
                expected: self.numkeys(),
                found,
            })
        }
    }

    /// The type of a declared key, i.e. what follows `emq:{q}:`: its fixed type, or the row
    /// type and the id.
    fn key_type(spec: KeySpec, id: &[u8]) -> [&[u8]; 2] {
        match spec {
            KeySpec::Queue(t) => [t, b""],
            KeySpec::Row => [keyspace::ROW_TYPE, id],
        }
    }

    /// Key `i` (0-based) as the verb expects it for queue `name` (the tests build calls with it;
    /// the check itself compares in place).
    #[cfg(test)]
    pub fn expected_key(&self, i: usize, name: &[u8], id: &[u8]) -> Vec<u8> {
        keyspace::queue_key(name, &Self::key_type(self.keys[i], id).concat())
    }

    /// The id argument a declared row is built from (the first argument), if the verb declares one.
    fn row_id<'a, A: Bytes>(&self, args: &'a [A]) -> &'a [u8] {
        if self.keys.contains(&KeySpec::Row) {
            args.first().map(Bytes::bytes).unwrap_or_default()
        } else {
            b""
        }
    }

    /// The layout check: the queue comes from key 1 alone (`Queue::from_key`); then every declared
    /// key, key 1 included, must be exactly the key that queue (and the id argument, for a row)
    /// gives in its position, compared where it lies. The first difference refuses.
    pub fn check<'a, K: Bytes, A: Bytes>(
        &self,
        keys: &'a [K],
        args: &[A],
    ) -> Result<Queue<'a>, LayoutError> {
        debug_assert_eq!(keys.len(), self.numkeys(), "the key count is checked first");
        let id = self.row_id(args);
        let queue = Queue::from_key(keys[0].bytes()).map_err(|e| self.unread(e, &keys[0], id))?;
        for (i, (key, &spec)) in keys.iter().zip(self.keys).enumerate() {
            let [key_type, row_id] = Self::key_type(spec, id);
            let expected = queue.key_parts(key_type, row_id);
            compare(key.bytes(), &expected)
                .map_err(|offset| LayoutError::differs(i + 1, offset, &expected, key.bytes()))?;
        }
        Ok(queue)
    }

    /// Key 1 gave no queue: an empty name, or the key is not `emq:{…}` at all (then the refusal
    /// quotes the expected shape with the literal `<queue>`).
    fn unread<K: Bytes>(&self, error: QueueKeyError, first: &K, id: &[u8]) -> LayoutError {
        match error {
            QueueKeyError::EmptyName => LayoutError::EmptyName,
            QueueKeyError::Prefix { offset } | QueueKeyError::Unclosed { offset } => {
                LayoutError::Differs {
                    pos: 1,
                    offset,
                    expected: keyspace::queue_key(
                        b"<queue>",
                        &Self::key_type(self.keys[0], id).concat(),
                    ),
                    found: first.bytes().to_vec(),
                }
            }
        }
    }
}

/// `found` against the concatenation of `parts`, without building it: the offset of the first
/// difference (`first_difference`'s, so a prefix differs at the shorter length).
fn compare(found: &[u8], parts: &[&[u8]]) -> Result<(), usize> {
    let mut at = 0;
    for part in parts {
        let rest = &found[at.min(found.len())..];
        if !rest.starts_with(part) {
            return Err(at + first_difference(rest, part));
        }
        at += part.len();
    }
    if found.len() == at {
        Ok(())
    } else {
        Err(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{bytes, vectors};

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
            assert_eq!(v["script"], layout.script);
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
                let id: &[u8] = b"JOB0Nb1VTbfnu4";
                let keys: Vec<Vec<u8>> = (0..layout.numkeys())
                    .map(|i| layout.expected_key(i, &q, id))
                    .collect();
                let key_refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
                let mut args: Vec<&[u8]> = vec![b"0"; layout.args.len()];
                args[0] = id;
                assert_eq!(layout.check(&key_refs, &args), Ok(Queue::new(&q)));
            }
        }
    }

    #[test]
    fn every_single_byte_change_is_caught() {
        let q = b"orders".to_vec();
        let id: &[u8] = b"JOB0Nb1VTbfnu4";
        for layout in LAYOUTS {
            let keys: Vec<Vec<u8>> = (0..layout.numkeys())
                .map(|i| layout.expected_key(i, &q, id))
                .collect();
            let args: Vec<&[u8]> = std::iter::once(id)
                .chain(std::iter::repeat(&b"0"[..]))
                .take(layout.args.len())
                .collect();
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
        let id: &[u8] = b"JOB0Nb1VTbfnu4";
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
            let args: Vec<&[u8]> = std::iter::once(id)
                .chain(std::iter::repeat(&b"0"[..]))
                .take(layout.args.len())
                .collect();
            for first in &firsts {
                let Ok(queue) = Queue::from_key(first) else {
                    let mut keys = vec![first.clone()];
                    keys.extend((1..layout.numkeys()).map(|i| layout.expected_key(i, b"q", id)));
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
                    .map(|i| layout.expected_key(i, queue.name(), id))
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
        let keyspace = include_str!("keyspace.rs");
        let from_key = keyspace
            .find("pub fn from_key")
            .expect("Queue::from_key exists");
        let impl_at = keyspace[..from_key].rfind("impl<'a> Queue<'a>").unwrap();
        assert!(!keyspace[..impl_at].trim_end().ends_with("#[cfg(test)]"));
        assert!(
            !keyspace.contains("fn queue_name("),
            "one reader of a queue name"
        );
        let check = include_str!("layout.rs");
        let body = &check[check.find("pub fn check<").unwrap()..];
        assert!(
            body[..body.find("\n    }\n").unwrap()].contains("Queue::from_key(keys[0].bytes())")
        );
        assert!(include_str!("commands/mod.rs").contains(".check(keys, args)"));
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
}
