//! The shared test vectors, read by the unit tests so the Rust and TypeScript grammars cannot drift.

use serde_json::Value;
use std::sync::OnceLock;

/// `tests/fixtures/keyspace-vectors.json`, compiled in: a changed fixture rebuilds the tests.
const VECTORS: &str = include_str!("../../tests/fixtures/keyspace-vectors.json");

pub fn vectors() -> &'static Value {
    static PARSED: OnceLock<Value> = OnceLock::new();
    PARSED.get_or_init(|| serde_json::from_str(VECTORS).expect("keyspace-vectors.json parses"))
}

/// A JSON string as the bytes of its UTF-8 encoding.
pub fn bytes(value: &Value) -> Vec<u8> {
    value
        .as_str()
        .unwrap_or_else(|| panic!("expected a string, found {value}"))
        .as_bytes()
        .to_vec()
}
