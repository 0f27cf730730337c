//! The keyspace mirror: the grammar of `server/keyspace`, rebuilt in Rust.
//!
//! Every key the module touches is composed here and nowhere else, so the host's grammar and the
//! module's can be held to one set of vectors (`tests/fixtures/keyspace-vectors.json`).
//! Names, types and ids are bytes: a queue name is never assumed to be UTF-8.
//!
//! The module itself runs the queue key, the reserve and `Queue::from_key` (the layout check reads the
//! queue of every call with it); the rest of the mirror (admission check, branded ids, rows, slots) is
//! compiled for the tests only, which hold it to the host's vectors, so the built module exports only
//! what it runs.

/// `emq:{` — every queue key starts with these bytes.
pub const QUEUE_KEY_PREFIX: &[u8] = b"emq:{";
/// `}:` — closes the hashtag and opens the type.
pub const QUEUE_KEY_INFIX: &[u8] = b"}:";
/// The type of a job row, before its id: the row base is `queue_key(q, "job:")`.
pub const ROW_TYPE: &[u8] = b"job:";
/// The braced base of the reserve: beside every queue, owned by none.
pub const RESERVE_BASE: &[u8] = b"{emq}:";
/// The namespace of a job id; the enqueue transition refuses any other (`EMQKIND`).
pub const JOB_KIND: &[u8] = b"JOB";

#[cfg(test)]
/// Number of slots in a Valkey cluster.
pub const SLOTS: u16 = 16384;

#[cfg(test)]
/// The 62 digits of a branded id, in byte order, so byte order equals numeric order.
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
#[cfg(test)]
/// A branded id: 3 namespace letters + 11 base62 digits.
pub const BRANDED_ID_LEN: usize = 14;
#[cfg(test)]
const KIND_LEN: usize = 3;
#[cfg(test)]
const PAYLOAD_DIGITS: usize = BRANDED_ID_LEN - KIND_LEN;
#[cfg(test)]
/// The largest payload a branded id carries: a 63-bit snowflake.
pub const MAX_PAYLOAD: u64 = i64::MAX as u64;

/// `queue_key(q, type)` = `emq:{` + q + `}:` + type.
pub fn queue_key(queue: &[u8], key_type: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(
        QUEUE_KEY_PREFIX.len() + queue.len() + QUEUE_KEY_INFIX.len() + key_type.len(),
    );
    key.extend_from_slice(QUEUE_KEY_PREFIX);
    key.extend_from_slice(queue);
    key.extend_from_slice(QUEUE_KEY_INFIX);
    key.extend_from_slice(key_type);
    key
}

#[cfg(test)]
/// The queue base `emq:{q}:`, from which undeclared same-slot keys (`meta`) are derived.
pub fn queue_base(queue: &[u8]) -> Vec<u8> {
    queue_key(queue, b"")
}

#[cfg(test)]
/// The row base `emq:{q}:job:`, declared by the verbs that derive rows from popped ids.
pub fn row_base(queue: &[u8]) -> Vec<u8> {
    queue_key(queue, ROW_TYPE)
}

#[cfg(test)]
/// The row as the transitions derive it: row base .. id, with no check on the id
/// (the scripts concatenate `KEYS[i] .. id` the same way).
pub fn row_key(queue: &[u8], id: &[u8]) -> Vec<u8> {
    let mut key = row_base(queue);
    key.extend_from_slice(id);
    key
}

#[cfg(test)]
/// `job_key(q, id)`: the host's total row builder, which refuses an id that is not a branded id.
pub fn job_key(queue: &[u8], id: &[u8]) -> Result<Vec<u8>, BrandedIdError> {
    decode_branded_id(id)?;
    Ok(row_key(queue, id))
}

/// `reserve(suffix)` = `{emq}:` + suffix.
pub fn reserve(suffix: &[u8]) -> Vec<u8> {
    let mut key = RESERVE_BASE.to_vec();
    key.extend_from_slice(suffix);
    key
}

/// `{emq}:version`, the key that holds the wire identity.
pub fn version_key() -> Vec<u8> {
    reserve(b"version")
}

/// Why a key does not parse as `emq:{<name>}:<type>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueKeyError {
    /// The key does not start with `emq:{`; `offset` is the first byte that differs
    /// (the key's length when the key is a proper prefix of `emq:{`).
    Prefix { offset: usize },
    /// No `}` follows `emq:{`; the key ran out at `offset` (its length).
    Unclosed { offset: usize },
    /// `emq:{}`: empty braces hash the whole key, so such a queue's keys would scatter.
    EmptyName,
}

/// A queue, known by its name: raw bytes, borrowed from the key it was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queue<'a> {
    name: &'a [u8],
}

impl<'a> Queue<'a> {
    /// The server-side reading of the grammar, run on key 1 of every `EMQ.*` call: the key must be
    /// `emq:{` + name + `}…`, where the name is every byte up to the first `}` and is not empty.
    /// Only the name is read here; the layout check then holds every key, key 1 included, to the
    /// keys that name gives.
    pub fn from_key(key: &'a [u8]) -> Result<Self, QueueKeyError> {
        let Some(rest) = key.strip_prefix(QUEUE_KEY_PREFIX) else {
            let offset = first_difference(key, QUEUE_KEY_PREFIX);
            return Err(QueueKeyError::Prefix { offset });
        };
        match rest.iter().position(|&b| b == b'}') {
            None => Err(QueueKeyError::Unclosed { offset: key.len() }),
            // `emq:{}…`: empty braces are no hashtag, so this queue's keys would scatter over slots.
            Some(0) => Err(QueueKeyError::EmptyName),
            Some(end) => Ok(Queue { name: &rest[..end] }),
        }
    }

    pub fn name(&self) -> &'a [u8] {
        self.name
    }

    /// This queue's key of `key_type` (then `row_id`, for a row) as the grammar's five pieces, so a
    /// key can be compared with it where it lies, without building it.
    pub fn key_parts<'t>(&self, key_type: &'t [u8], row_id: &'t [u8]) -> [&'t [u8]; 5]
    where
        'a: 't,
    {
        [
            QUEUE_KEY_PREFIX,
            self.name,
            QUEUE_KEY_INFIX,
            key_type,
            row_id,
        ]
    }
}

#[cfg(test)]
impl<'a> Queue<'a> {
    pub fn new(name: &'a [u8]) -> Self {
        Queue { name }
    }

    pub fn key(&self, key_type: &[u8]) -> Vec<u8> {
        queue_key(self.name, key_type)
    }

    pub fn base(&self) -> Vec<u8> {
        queue_base(self.name)
    }

    pub fn row_base(&self) -> Vec<u8> {
        row_base(self.name)
    }

    pub fn row(&self, id: &[u8]) -> Vec<u8> {
        row_key(self.name, id)
    }
}

#[cfg(test)]
/// Why a name fails the admission check (`validQueue`, EchoMQ's `valid_queue!/1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueNameError {
    Empty,
    Brace { byte: u8, offset: usize },
    Nul { offset: usize },
}

#[cfg(test)]
/// The admission check: a queue name is at least one byte and holds no `{`, `}` or NUL.
/// The module does not call it on the wire (the host refuses such names before any wire);
/// it is compiled for the tests, so the mirror is whole and held to the same vectors.
pub fn valid_queue(name: &[u8]) -> Result<(), QueueNameError> {
    if name.is_empty() {
        return Err(QueueNameError::Empty);
    }
    for (offset, &byte) in name.iter().enumerate() {
        match byte {
            b'{' | b'}' => return Err(QueueNameError::Brace { byte, offset }),
            0 => return Err(QueueNameError::Nul { offset }),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
/// Why bytes are not a branded id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrandedIdError {
    Length(usize),
    Kind,
    Digit { offset: usize },
    Overflow,
}

#[cfg(test)]
/// A decoded branded id: its namespace and its 63-bit payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrandedId {
    pub kind: [u8; KIND_LEN],
    pub payload: u64,
}

#[cfg(test)]
/// Decodes `AAA` + 11 base62 digits; the payload must fit in 63 bits.
pub fn decode_branded_id(id: &[u8]) -> Result<BrandedId, BrandedIdError> {
    if id.len() != BRANDED_ID_LEN {
        return Err(BrandedIdError::Length(id.len()));
    }
    let (kind, digits) = id.split_at(KIND_LEN);
    if !kind.iter().all(u8::is_ascii_uppercase) {
        return Err(BrandedIdError::Kind);
    }
    // 62^11 exceeds u64, so accumulate wide and compare against the 63-bit bound once.
    let mut payload: u128 = 0;
    for (i, &byte) in digits.iter().enumerate() {
        let digit = base62_digit(byte).ok_or(BrandedIdError::Digit {
            offset: KIND_LEN + i,
        })?;
        payload = payload * 62 + u128::from(digit);
    }
    if payload > u128::from(MAX_PAYLOAD) {
        return Err(BrandedIdError::Overflow);
    }
    Ok(BrandedId {
        kind: [kind[0], kind[1], kind[2]],
        payload: payload as u64,
    })
}

#[cfg(test)]
/// Encodes a namespace and a payload as a branded id; `None` when either is out of range.
pub fn encode_branded_id(kind: &[u8], payload: u64) -> Option<Vec<u8>> {
    if kind.len() != KIND_LEN || !kind.iter().all(u8::is_ascii_uppercase) || payload > MAX_PAYLOAD {
        return None;
    }
    let mut digits = [b'0'; PAYLOAD_DIGITS];
    let mut rest = payload;
    for slot in digits.iter_mut().rev() {
        *slot = BASE62[(rest % 62) as usize];
        rest /= 62;
    }
    let mut id = kind.to_vec();
    id.extend_from_slice(&digits);
    Some(id)
}

#[cfg(test)]
pub fn is_branded_id(id: &[u8]) -> bool {
    decode_branded_id(id).is_ok()
}

#[cfg(test)]
fn base62_digit(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'A'..=b'Z' => Some(byte - b'A' + 10),
        b'a'..=b'z' => Some(byte - b'a' + 36),
        _ => None,
    }
}

#[cfg(test)]
/// `hashtag(key)`: the bytes between the first `{` and the first `}` after it, when at least one
/// byte lies between; otherwise the whole key.
pub fn hashtag(key: &[u8]) -> &[u8] {
    if let Some(open) = key.iter().position(|&b| b == b'{') {
        if let Some(len) = key[open + 1..].iter().position(|&b| b == b'}') {
            if len > 0 {
                return &key[open + 1..open + 1 + len];
            }
        }
    }
    key
}

#[cfg(test)]
/// CRC16-XMODEM: poly 0x1021, init 0, no reflection, no final xor.
pub fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in bytes {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

#[cfg(test)]
/// `slot(key)` = CRC16(hashtag(key)) mod 16384.
pub fn slot(key: &[u8]) -> u16 {
    crc16(hashtag(key)) % SLOTS
}

/// The first offset where `a` and `b` differ; the shorter one's length when one is a prefix of
/// the other; `None`-free by design: equal slices give their common length.
pub fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

#[cfg(test)]
mod tests {
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
}
