//! The wire identity and the error replies, byte for byte as the error catalogue writes them
//! (`server/contract/catalogue/error-codes.ts`; `docs/wire.md` shows its table).
//! `tests/native/error-texts.test.ts` holds the loaded module's replies to it.
//!
//! Every message is one line of ASCII whatever the keys hold: values are quoted with `'…'` and
//! every byte outside `0x20–0x7e`, plus `'` and `\`, is written `\xNN`.

use crate::keyspace;

/// The identity this module speaks; a keyspace claimed by any other speaker is refused.
pub const WIRE_IDENTITY: &[u8] = b"echomq:6.0.0";

// panel: CLUSTER_MODE (the course shows these lines: src/lib/source.ts)
/// The exact refusal on a cluster-enabled server: every native write reads `{emq}:version`, on
/// slot 9051, another slot than the queue's for every queue but those that hash there (`emq`).
pub const CLUSTER_MODE: &str = "EMQWIRE expected a standalone server but cluster mode is enabled";
// end of panel: CLUSTER_MODE

/// Escapes bytes for an error message (`\xNN`, two lower-case hex digits).
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &byte in bytes {
        match byte {
            b'\'' | b'\\' => push_hex(&mut out, byte),
            0x20..=0x7e => out.push(byte as char),
            _ => push_hex(&mut out, byte),
        }
    }
    out
}

fn push_hex(out: &mut String, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\x");
    out.push(HEX[usize::from(byte >> 4)] as char);
    out.push(HEX[usize::from(byte & 0x0f)] as char);
}

/// `'…'`, escaped.
pub fn quote(bytes: &[u8]) -> String {
    format!("'{}'", escape(bytes))
}

/// What `{emq}:version` held when the fence read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Identity<'a> {
    Absent,
    Value(&'a [u8]),
    /// A key of another type than string (`hash`, `list`, …).
    OtherType(&'static str),
}

// panel: check_identity (the course shows these lines: src/lib/source.ts)
/// The native fence: it reads and never claims. Only this module's identity lets a write through.
/// Nothing is allocated on the accepted path: every native write passes here.
pub fn check_identity(found: Identity<'_>) -> Result<(), String> {
    if found == Identity::Value(WIRE_IDENTITY) {
        return Ok(());
    }
    let expected = format!(
        "EMQWIRE expected wire identity {} at {}",
        quote(WIRE_IDENTITY),
        quote(&keyspace::version_key())
    );
    match found {
        Identity::Value(value) => Err(format!("{expected} but found {}", quote(value))),
        Identity::Absent => Err(format!("{expected} but found none (not installed)")),
        Identity::OtherType(kind) => Err(format!("{expected} but found a {kind}")),
    }
}
// end of panel: check_identity

/// `EMQKIND`: the admission transitions take only ids of namespace `JOB`.
pub fn wrong_kind(id: &[u8]) -> String {
    format!(
        "EMQKIND expected an id of kind {} but found {}",
        quote(keyspace::JOB_KIND),
        quote(id)
    )
}

/// `EMQSTALE`: the token is not the row's `attempts`, so the caller's lease was superseded.
pub fn stale(attempts: &[u8], id: &[u8], token: &[u8]) -> String {
    format!(
        "EMQSTALE expected token {} for {} but found {}",
        quote(attempts),
        quote(id),
        quote(token)
    )
}

/// A numeric argument that does not parse; not part of the conformance contract.
pub fn not_an_integer(name: &str, value: &[u8]) -> String {
    format!("ERR {name} must be an integer but found {}", quote(value))
}

/// Base-10 `i64`: an optional `-`, then digits; no `+`, no spaces, no leading zeros
/// (the server's own `string2ll` rules, so `007` is not a lease).
pub fn parse_integer(value: &[u8]) -> Option<i64> {
    let digits = value.strip_prefix(b"-").unwrap_or(value);
    let canonical = match digits {
        [] => false,
        [b'0'] => value.len() == 1,
        [first, ..] => *first != b'0' && digits.iter().all(u8::is_ascii_digit),
    };
    if !canonical {
        return None;
    }
    // Accumulated toward the sign, so i64::MIN parses and one past either end does not.
    let negative = digits.len() < value.len();
    digits.iter().try_fold(0i64, |n, &d| {
        let d = i64::from(d - b'0');
        let n = n.checked_mul(10)?;
        if negative {
            n.checked_sub(d)
        } else {
            n.checked_add(d)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{bytes, vectors};

    #[test]
    fn escape_follows_the_rule() {
        assert_eq!(escape(b"emq:{orders}:pending"), "emq:{orders}:pending");
        assert_eq!(escape("ça".as_bytes()), "\\xc3\\xa7a");
        assert_eq!(escape(b"a'b\\c"), "a\\x27b\\x5cc");
        assert_eq!(escape(b"\x00\x1f\x7f\xff ~"), "\\x00\\x1f\\x7f\\xff ~");
    }

    #[test]
    fn escape_matches_the_shared_vectors() {
        for v in vectors()["escape"].as_array().unwrap() {
            assert_eq!(escape(&bytes(&v["input"])), v["escaped"].as_str().unwrap());
        }
    }

    #[test]
    fn the_wire_identity_is_the_pinned_one() {
        assert_eq!(
            WIRE_IDENTITY,
            bytes(&vectors()["reserve"]["wire6"]).as_slice()
        );
    }

    #[test]
    fn identity_messages_are_exact() {
        assert_eq!(check_identity(Identity::Value(b"echomq:6.0.0")), Ok(()));
        assert_eq!(
            check_identity(Identity::Absent).unwrap_err(),
            "EMQWIRE expected wire identity 'echomq:6.0.0' at '{emq}:version' but found none (not installed)"
        );
        assert_eq!(
            check_identity(Identity::Value(b"echomq:4.0.0")).unwrap_err(),
            "EMQWIRE expected wire identity 'echomq:6.0.0' at '{emq}:version' but found 'echomq:4.0.0'"
        );
        assert_eq!(
            check_identity(Identity::OtherType("hash")).unwrap_err(),
            "EMQWIRE expected wire identity 'echomq:6.0.0' at '{emq}:version' but found a hash"
        );
    }

    #[test]
    fn transition_messages_are_exact() {
        assert_eq!(
            wrong_kind(b"USR0KHTOWnGLuC"),
            "EMQKIND expected an id of kind 'JOB' but found 'USR0KHTOWnGLuC'"
        );
        assert_eq!(
            stale(b"2", b"JOB0Nb1VTbfnu4", b"1"),
            "EMQSTALE expected token '2' for 'JOB0Nb1VTbfnu4' but found '1'"
        );
        assert_eq!(
            not_an_integer("lease_ms", b"1e3"),
            "ERR lease_ms must be an integer but found '1e3'"
        );
    }

    #[test]
    fn integers_parse_strictly() {
        assert_eq!(parse_integer(b"0"), Some(0));
        assert_eq!(parse_integer(b"-5"), Some(-5));
        assert_eq!(parse_integer(b"30000"), Some(30000));
        assert_eq!(parse_integer(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_integer(b"-9223372036854775808"), Some(i64::MIN));
        for bad in [
            &b""[..],
            b"-",
            b"+1",
            b" 1",
            b"01",
            b"-0",
            b"1e3",
            b"0x10",
            b"9223372036854775808",
            b"-9223372036854775809",
            b"99999999999999999999",
        ] {
            assert_eq!(parse_integer(bad), None, "{}", escape(bad));
        }
    }
}
