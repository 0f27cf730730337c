//! What the tests need of the layouts beyond the check: every layout in order, a layout by its
//! verb, its script's file, and a declared key built whole. Compiled for the tests only.

use super::*;

/// Every native verb, in the order `lib.rs` registers them.
pub const LAYOUTS: [&Layout; 7] = [
    &ENQUEUE, &SCHEDULE, &CLAIM, &COMPLETE, &RETRY, &PROMOTE, &REAP,
];

pub fn by_verb(verb: &str) -> Option<&'static Layout> {
    LAYOUTS
        .iter()
        .copied()
        .find(|l| l.verb.eq_ignore_ascii_case(verb))
}

impl Layout {
    /// Key `i` (0-based) as the verb expects it for queue `name` (the tests build calls with it;
    /// the check itself compares in place).
    pub fn expected_key(&self, i: usize, name: &[u8], id: &[u8]) -> Vec<u8> {
        keyspace::queue_key(name, &Self::key_type(self.keys[i], id).concat())
    }

    /// The script of the same transition, held to the shared vectors by the tests.
    pub fn script(&self) -> &'static str {
        match self.verb {
            "EMQ.ENQUEUE" => "enqueue-2.lua",
            "EMQ.SCHEDULE" => "schedule-2.lua",
            "EMQ.CLAIM" => "claim-3.lua",
            "EMQ.COMPLETE" => "complete-3.lua",
            "EMQ.RETRY" => "retry-5.lua",
            "EMQ.PROMOTE" => "promote-3.lua",
            "EMQ.REAP" => "reap-3.lua",
            verb => panic!("no script for {verb}"),
        }
    }
}
