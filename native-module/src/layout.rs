//! The layout check: the queue read from key 1 by `Queue::from_key`, then every declared key compared
//! byte for byte with the key that queue gives, before anything is read or written.
//!
//! Each verb's declared key list is pinned here once (the same lists the scripts declare), so the
//! module can never open a key a host did not declare in the expected place.

use crate::keyspace::{
    self, first_difference, Queue, QueueKeyError, QUEUE_KEY_INFIX, QUEUE_KEY_PREFIX,
};
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
    pub keys: &'static [KeySpec],
    pub args: &'static [&'static str],
}

use KeySpec::{Queue as Q, Row};

pub const ENQUEUE: Layout = Layout {
    verb: "EMQ.ENQUEUE",
    keys: &[Row, Q(b"pending")],
    args: &["id", "payload"],
};

pub const SCHEDULE: Layout = Layout {
    verb: "EMQ.SCHEDULE",
    keys: &[Row, Q(b"schedule")],
    args: &["id", "payload", "run_at_ms"],
};

pub const CLAIM: Layout = Layout {
    verb: "EMQ.CLAIM",
    keys: &[Q(b"pending"), Q(b"active"), Q(keyspace::ROW_TYPE)],
    args: &["lease_ms"],
};

pub const COMPLETE: Layout = Layout {
    verb: "EMQ.COMPLETE",
    keys: &[Q(b"active"), Row, Q(b"metrics:completed")],
    args: &["id", "token"],
};

pub const RETRY: Layout = Layout {
    verb: "EMQ.RETRY",
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
    keys: &[Q(b"schedule"), Q(b"pending"), Q(keyspace::ROW_TYPE)],
    args: &["batch"],
};

pub const REAP: Layout = Layout {
    verb: "EMQ.REAP",
    keys: &[Q(b"active"), Q(b"pending"), Q(keyspace::ROW_TYPE)],
    args: &["batch"],
};

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

    /// The id argument a declared row is built from (the first argument), if the verb declares one.
    fn row_id<'a, A: Bytes>(&self, args: &'a [A]) -> &'a [u8] {
        if self.keys.contains(&KeySpec::Row) {
            args.first().map(Bytes::bytes).unwrap_or_default()
        } else {
            b""
        }
    }

    // panel: Layout::check (the course shows these lines: src/lib/source.ts)
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
        let first = keys[0].bytes();
        let queue = Queue::from_key(first).map_err(|e| self.unread(e, &keys[0], id))?;
        if self.all_match(first, &queue, keys, id) {
            return Ok(queue);
        }
        // A refusal: the first key, and its first byte, that differ.
        for (i, (key, &spec)) in keys.iter().zip(self.keys).enumerate() {
            let [key_type, row_id] = Self::key_type(spec, id);
            let expected = queue.key_parts(key_type, row_id);
            compare(key.bytes(), &expected)
                .map_err(|offset| LayoutError::differs(i + 1, offset, &expected, key.bytes()))?;
        }
        Ok(queue)
    }
    // end of panel: Layout::check

    /// The accepted path of the check, in as few compares as it takes: every key begins with key 1's
    /// `emq:{q}:` (key 1's own once its `:` is there: `from_key` read `emq:{q}` and the `}` from it),
    /// then is its type and, for a row, the id. True exactly when every key is the one its parts give.
    fn all_match<K: Bytes>(&self, first: &[u8], queue: &Queue, keys: &[K], id: &[u8]) -> bool {
        let head_len = QUEUE_KEY_PREFIX.len() + queue.name().len() + QUEUE_KEY_INFIX.len();
        if first.get(head_len - 1) != QUEUE_KEY_INFIX.last() {
            return false;
        }
        let head = &first[..head_len];
        keys.iter()
            .zip(self.keys)
            .enumerate()
            .all(|(i, (key, &spec))| {
                let key = if i == 0 { first } else { key.bytes() };
                let [key_type, row_id] = Self::key_type(spec, id);
                let type_end = head_len + key_type.len();
                key.len() == type_end + row_id.len()
                    && (i == 0 || key[..head_len] == *head)
                    && key[head_len..type_end] == *key_type
                    && key[type_end..] == *row_id
            })
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
mod mirror;
#[cfg(test)]
pub use mirror::*;

#[cfg(test)]
mod tests;
