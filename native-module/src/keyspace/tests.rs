use super::*;
use crate::fixtures::{bytes, vectors};
use crate::wire::escape;

#[test]
fn queue_keys_match_the_shared_vectors() {
    for v in vectors()["queueKeys"].as_array().unwrap() {
        let key = queue_key(&bytes(&v["queue"]), &bytes(&v["type"]));
        assert_eq!(key, bytes(&v["key"]), "{v}");
    }
}

#[test]
fn job_keys_match_the_shared_vectors() {
    for v in vectors()["jobKeys"].as_array().unwrap() {
        let key = job_key(&bytes(&v["queue"]), &bytes(&v["id"])).unwrap();
        assert_eq!(key, bytes(&v["key"]), "{v}");
        assert!(key.starts_with(&row_base(&bytes(&v["queue"]))));
    }
}

#[test]
fn job_key_refuses_an_invalid_id() {
    for v in vectors()["brandedIds"]["invalid"].as_array().unwrap() {
        assert!(job_key(b"orders", &bytes(v)).is_err(), "{v}");
    }
}

#[test]
fn the_reserve_matches_the_shared_vectors() {
    let reserve_v = &vectors()["reserve"];
    assert_eq!(reserve(b""), bytes(&reserve_v["base"]));
    assert_eq!(version_key(), bytes(&reserve_v["versionKey"]));
    assert_eq!(
        u64::from(slot(&version_key())),
        reserve_v["slot"].as_u64().unwrap()
    );
    // First-byte-disjoint from every queue key.
    assert_ne!(RESERVE_BASE[0], QUEUE_KEY_PREFIX[0]);
}

#[test]
fn hashtags_and_slots_match_the_shared_vectors() {
    for v in vectors()["slots"].as_array().unwrap() {
        let key = bytes(&v["key"]);
        assert_eq!(hashtag(&key), bytes(&v["hashtag"]).as_slice(), "{v}");
        assert_eq!(u64::from(slot(&key)), v["slot"].as_u64().unwrap(), "{v}");
    }
    for v in vectors()["crc16"].as_array().unwrap() {
        assert_eq!(
            u64::from(crc16(&bytes(&v["input"]))),
            v["crc"].as_u64().unwrap()
        );
    }
}

/// Every key type the verbs declare (the fixture's `verbs`, the row's `<id>` filled in with a job
/// id), and `meta`, which claim derives from the row base.
fn every_key_type() -> Vec<Vec<u8>> {
    let mut types: Vec<Vec<u8>> = vectors()["verbs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|v| v["keys"].as_array().unwrap())
        .map(|t| {
            t.as_str()
                .unwrap()
                .replace("<id>", "JOB0Nb1VTbfnu4")
                .into_bytes()
        })
        .collect();
    types.push(b"meta".to_vec());
    types.sort();
    types.dedup();
    types
}

#[test]
fn every_key_of_one_queue_shares_one_slot() {
    let types = every_key_type();
    for name in vectors()["queueNames"]["valid"].as_array().unwrap() {
        let name = bytes(name);
        let q = Queue::new(&name);
        let s = slot(&q.key(b"pending"));
        for t in &types {
            assert_eq!(slot(&q.key(t)), s, "{}", String::from_utf8_lossy(t));
        }
    }
}

#[test]
fn branded_ids_match_the_shared_vectors() {
    let ids = &vectors()["brandedIds"];
    for v in ids["valid"].as_array().unwrap() {
        let id = bytes(&v["id"]);
        let payload: u64 = v["value"].as_str().unwrap().parse().unwrap();
        let decoded = decode_branded_id(&id).unwrap();
        assert_eq!(decoded.payload, payload, "{v}");
        assert_eq!(encode_branded_id(&id[..3], payload).unwrap(), id);
    }
    for v in ids["validJobIds"].as_array().unwrap() {
        let id = bytes(v);
        assert!(is_branded_id(&id));
        assert!(id.starts_with(JOB_KIND));
    }
    for v in ids["invalid"].as_array().unwrap() {
        assert!(!is_branded_id(&bytes(v)), "{v}");
    }
    assert_eq!(encode_branded_id(b"JOB", MAX_PAYLOAD + 1), None);
    assert_eq!(encode_branded_id(b"job", 1), None);
}

#[test]
fn byte_order_is_numeric_order() {
    let payloads = [
        0u64,
        1,
        61,
        62,
        3843,
        3844,
        1 << 40,
        MAX_PAYLOAD - 1,
        MAX_PAYLOAD,
    ];
    let ids: Vec<Vec<u8>> = payloads
        .iter()
        .map(|&p| encode_branded_id(b"JOB", p).unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
}

#[test]
fn queue_names_match_the_admission_vectors() {
    let names = &vectors()["queueNames"];
    for v in names["valid"].as_array().unwrap() {
        assert_eq!(valid_queue(&bytes(v)), Ok(()), "{v}");
    }
    for v in names["invalid"].as_array().unwrap() {
        let got = valid_queue(&bytes(&v["queue"])).unwrap_err();
        let offset = v["offset"].as_u64().map(|o| o as usize);
        let expected = match v["reason"].as_str().unwrap() {
            "empty" => QueueNameError::Empty,
            "brace" => QueueNameError::Brace {
                byte: bytes(&v["byte"])[0],
                offset: offset.unwrap(),
            },
            "nul" => QueueNameError::Nul {
                offset: offset.unwrap(),
            },
            other => panic!("unknown reason {other}"),
        };
        assert_eq!(got, expected, "{v}");
    }
}

#[test]
fn from_key_recovers_every_valid_name() {
    let types = every_key_type();
    for v in vectors()["queueNames"]["valid"].as_array().unwrap() {
        let name = bytes(v);
        for t in &types {
            let key = queue_key(&name, t);
            assert_eq!(Queue::from_key(&key).unwrap().name(), name.as_slice());
        }
    }
    // A name is raw bytes: invalid UTF-8 survives the round trip.
    let q = Queue::from_key(b"emq:{\xff\xfe}:pending").unwrap();
    assert_eq!(q.name(), b"\xff\xfe");
}

#[test]
fn from_key_names_where_a_key_breaks() {
    use QueueKeyError::{EmptyName, Prefix, Unclosed};
    let cases: [(&[u8], QueueKeyError); 5] = [
        (b"emq:{}:pending", EmptyName),
        (b"emq:[orders]:pending", Prefix { offset: 4 }),
        (b"emq:", Prefix { offset: 4 }),
        (b"{emq}:version", Prefix { offset: 0 }),
        (b"emq:{orders", Unclosed { offset: 11 }),
    ];
    for (key, expected) in cases {
        assert_eq!(Queue::from_key(key), Err(expected), "{}", escape(key));
    }
    // The name stops at the first `}`; the layout check catches what follows.
    assert_eq!(Queue::from_key(b"emq:{ab}}:x").unwrap().name(), b"ab");
}

#[test]
fn first_difference_is_the_shorter_length_on_a_prefix() {
    assert_eq!(first_difference(b"abc", b"abd"), 2);
    assert_eq!(first_difference(b"ab", b"abc"), 2);
    assert_eq!(first_difference(b"abc", b"ab"), 2);
    assert_eq!(first_difference(b"", b"a"), 0);
}
