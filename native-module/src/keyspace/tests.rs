use super::*;
use crate::fixtures::{bytes, vectors};

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

#[test]
fn every_key_of_one_queue_shares_one_slot() {
    for name in vectors()["queueNames"]["valid"].as_array().unwrap() {
        let name = bytes(name);
        let q = Queue::new(&name);
        let s = slot(&q.key(b"pending"));
        for t in [
            &b"active"[..],
            b"schedule",
            b"dead",
            b"meta",
            b"metrics:failed",
        ] {
            assert_eq!(slot(&q.key(t)), s);
        }
        assert_eq!(slot(&q.row(b"JOB0Nb1VTbfnu4")), s);
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
    for v in vectors()["queueNames"]["valid"].as_array().unwrap() {
        let name = bytes(v);
        for t in [
            &b"pending"[..],
            b"job:",
            b"job:JOB0Nb1VTbfnu4",
            b"metrics:completed",
        ] {
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
    assert_eq!(
        Queue::from_key(b"emq:{}:pending"),
        Err(QueueKeyError::EmptyName)
    );
    assert_eq!(
        Queue::from_key(b"emq:[orders]:pending"),
        Err(QueueKeyError::Prefix { offset: 4 })
    );
    assert_eq!(
        Queue::from_key(b"emq:"),
        Err(QueueKeyError::Prefix { offset: 4 })
    );
    assert_eq!(
        Queue::from_key(b"{emq}:version"),
        Err(QueueKeyError::Prefix { offset: 0 })
    );
    assert_eq!(
        Queue::from_key(b"emq:{orders"),
        Err(QueueKeyError::Unclosed { offset: 11 })
    );
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
