//! The layout check: every declared key, rebuilt from the one recovered queue name and compared
//! byte for byte, before anything is read or written.
//!
//! Each verb's declared key list is pinned here once (the same lists the scripts declare), so the
//! module can never open a key a host did not declare in the expected place.

use crate::keyspace::{self, first_difference, QueueKeyError, QUEUE_KEY_INFIX, QUEUE_KEY_PREFIX};
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

    /// Recovers the queue name from key 1, then holds keys 1…n to the keys that one name (and the
    /// id argument for a row) gives, byte for byte, in place; the first difference refuses.
    /// `keys` must hold exactly `numkeys()` keys (the key count is checked first).
    /// Returns the queue's name.
    pub fn check<'a, K: Bytes, A: Bytes>(
        &self,
        keys: &'a [K],
        args: &[A],
    ) -> Result<&'a [u8], LayoutError> {
        debug_assert_eq!(keys.len(), self.numkeys());
        let id = self.row_id(args);
        let first = keys[0].bytes();
        let name = keyspace::queue_name(first).map_err(|e| match e {
            QueueKeyError::EmptyName => LayoutError::EmptyName,
            QueueKeyError::Prefix { offset } | QueueKeyError::Unclosed { offset } => {
                LayoutError::Differs {
                    pos: 1,
                    offset,
                    expected: keyspace::queue_key(
                        b"<queue>",
                        &Self::key_type(self.keys[0], id).concat(),
                    ),
                    found: first.to_vec(),
                }
            }
        })?;
        // Every key starts with key 1's base `emq:{name}:` (when key 1 has one): each key's own
        // part is compared in place, and any key that is not exactly as expected goes on to the
        // part-by-part comparison below, which finds the offset its refusal quotes.
        let base_len = QUEUE_KEY_PREFIX.len() + name.len() + QUEUE_KEY_INFIX.len();
        let base = first
            .get(..base_len)
            .filter(|base| base.ends_with(QUEUE_KEY_INFIX));
        for (i, (key, &spec)) in keys.iter().zip(self.keys).enumerate() {
            let found = if i == 0 { first } else { key.bytes() };
            let [key_type, row_id] = Self::key_type(spec, id);
            if let Some(base) = base {
                let (own, rest) = found.split_at(base_len.min(found.len()));
                if rest.len() == key_type.len() + row_id.len()
                    && (i == 0 || own == base)
                    && rest.starts_with(key_type)
                    && rest.ends_with(row_id)
                {
                    continue;
                }
            }
            let parts = [QUEUE_KEY_PREFIX, name, QUEUE_KEY_INFIX, key_type, row_id];
            if let Err(offset) = compare(found, &parts) {
                return Err(LayoutError::Differs {
                    pos: i + 1,
                    offset,
                    expected: parts.concat(),
                    found: found.to_vec(),
                });
            }
        }
        Ok(name)
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
                    assert_eq!(queue, bytes(&v["queue"]).as_slice(), "{v}");
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
                assert_eq!(layout.check(&key_refs, &args), Ok(q.as_slice()));
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
