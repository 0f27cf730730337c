//! The admission transitions: enqueue and schedule write a new job row and put its id on a
//! sorted set. Both refuse an id that is not of namespace `JOB`, and leave an existing row alone.

use super::{admit, Call};
use crate::keyspace::JOB_KIND;
use crate::layout::{ENQUEUE, SCHEDULE};
use crate::shared::shared;
use crate::store::Key;
use crate::strings::Str;
use crate::wire;
use valkey_module::{Context, KeyType, ValkeyError, ValkeyResult, ValkeyValue};

/// `EMQ.ENQUEUE 2 <row> <pending> <id> <payload>` → 1 new, 0 duplicate.
pub fn enqueue(ctx: &Context, argv: &[Str]) -> ValkeyResult {
    let call = admit(ctx, &ENQUEUE, argv)?;
    // Pending jobs all score 0: members sort by bytes, and branded ids sort in mint order.
    add_job(ctx, &call, shared().pending, 0)
}

/// `EMQ.SCHEDULE 2 <row> <schedule> <id> <payload> <run_at_ms>` → 1 new, 0 duplicate.
pub fn schedule(ctx: &Context, argv: &[Str]) -> ValkeyResult {
    let call = admit(ctx, &SCHEDULE, argv)?;
    let run_at_ms = call.int_arg(2)?;
    add_job(ctx, &call, shared().scheduled, run_at_ms)
}

/// Writes the row (`state`, `attempts`, `payload`, in this order) and adds the id to key 2.
fn add_job(ctx: &Context, call: &Call, state: Str, score: i64) -> ValkeyResult {
    let (id, payload) = (call.arg(0), call.arg(1));
    if !id.bytes().starts_with(JOB_KIND) {
        return Err(ValkeyError::String(wire::wrong_kind(id.bytes())));
    }
    let row = Key::open(ctx, call.key(0));
    // Whatever the row holds, it exists: a duplicate, like the script's `EXISTS`.
    if row.exists() {
        return Ok(ValkeyValue::Integer(0));
    }
    let set = Key::open(ctx, call.key(1));
    set.expect(KeyType::ZSet)?;

    let s = shared();
    row.hset(&[(s.state, state), (s.attempts, s.zero), (s.payload, payload)]);
    set.zadd(score, id);
    Ok(ValkeyValue::Integer(1))
}
