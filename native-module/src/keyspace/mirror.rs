//! The rest of the mirror of `server/contract/keyspace`, compiled for the tests only: the admission check,
//! branded ids, rows, hashtags and slots. The tests hold it to the host's vectors; the module never
//! runs it, so the built module exports only what it runs.

use super::*;

/// Number of slots in a Valkey cluster.
pub const SLOTS: u16 = 16384;

/// The 62 digits of a branded id, in byte order, so byte order equals numeric order.
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A branded id: 3 namespace letters + 11 base62 digits.
pub const BRANDED_ID_LEN: usize = 14;

const KIND_LEN: usize = 3;

const PAYLOAD_DIGITS: usize = BRANDED_ID_LEN - KIND_LEN;

/// The largest payload a branded id carries: a 63-bit snowflake.
pub const MAX_PAYLOAD: u64 = i64::MAX as u64;

/// The queue base `emq:{q}:`, from which undeclared same-slot keys (`meta`) are derived.
pub fn queue_base(queue: &[u8]) -> Vec<u8> {
    queue_key(queue, b"")
}

/// The row base `emq:{q}:job:`, declared by the verbs that derive rows from popped ids.
pub fn row_base(queue: &[u8]) -> Vec<u8> {
    queue_key(queue, ROW_TYPE)
}

/// The row as the transitions derive it: row base .. id, with no check on the id
/// (the scripts concatenate `KEYS[i] .. id` the same way).
pub fn row_key(queue: &[u8], id: &[u8]) -> Vec<u8> {
    let mut key = row_base(queue);
    key.extend_from_slice(id);
    key
}

/// `job_key(q, id)`: the host's total row builder, which refuses an id that is not a branded id.
pub fn job_key(queue: &[u8], id: &[u8]) -> Result<Vec<u8>, BrandedIdError> {
    decode_branded_id(id)?;
    Ok(row_key(queue, id))
}

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

/// Why a name fails the admission check (`validQueue`, EchoMQ's `valid_queue!/1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueNameError {
    Empty,
    Brace { byte: u8, offset: usize },
    Nul { offset: usize },
}

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

/// Why bytes are not a branded id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrandedIdError {
    Length(usize),
    Kind,
    Digit { offset: usize },
    Overflow,
}

/// A decoded branded id: its namespace and its 63-bit payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrandedId {
    pub kind: [u8; KIND_LEN],
    pub payload: u64,
}

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

pub fn is_branded_id(id: &[u8]) -> bool {
    decode_branded_id(id).is_ok()
}

fn base62_digit(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'A'..=b'Z' => Some(byte - b'A' + 10),
        b'a'..=b'z' => Some(byte - b'a' + 36),
        _ => None,
    }
}

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

/// `slot(key)` = CRC16(hashtag(key)) mod 16384.
pub fn slot(key: &[u8]) -> u16 {
    crc16(hashtag(key)) % SLOTS
}
