//! The keyspace mirror: the grammar of `server/contract/keyspace`, rebuilt in Rust.
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
    // panel: Queue::from_key (the course shows these lines: src/lib/source.ts)
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
    // end of panel: Queue::from_key

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

/// The first offset where `a` and `b` differ; the shorter one's length when one is a prefix of
/// the other; `None`-free by design: equal slices give their common length.
pub fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

#[cfg(test)]
mod mirror;
#[cfg(test)]
pub use mirror::*;

#[cfg(test)]
mod tests;
