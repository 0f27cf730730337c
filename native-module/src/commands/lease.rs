//! The lease transitions: claim hands out the oldest pending job under a lease, and its holder
//! completes or retries it. The row's `attempts` is the fencing token: a holder whose token is not
//! the row's current count has lost the lease (`EMQSTALE`).

use super::{admit, score_after, Call};
use crate::layout::{CLAIM, COMPLETE, RETRY};
use crate::store::{now_ms, Key};
use crate::wire;
use valkey_module::{Context, KeyType, ValkeyError, ValkeyResult, ValkeyString, ValkeyValue};

/// `EMQ.CLAIM 3 <pending> <active> <row-base> <lease_ms>` → nil, or `[id, payload, attempts]`.
pub fn claim(ctx: &Context, argv: &[ValkeyString]) -> ValkeyResult {
    let call = admit(ctx, &CLAIM, argv)?;
    let lease_ms = call.int_arg(0)?;

    // `meta` is derived from the declared base (row base less `job:`), so it is on the queue's slot.
    let meta = Key::open_read(ctx, &call.queue.key(b"meta"));
    meta.expect(KeyType::Hash)?;
    if meta.hget(c"paused").as_deref() == Some(b"1") {
        return Ok(ValkeyValue::Null);
    }
    let pending = Key::open(ctx, call.key(0));
    let active = Key::open(ctx, call.key(1));
    pending.expect(KeyType::ZSet)?;
    active.expect(KeyType::ZSet)?;
    let Some(id) = pending.zfirst() else {
        return Ok(ValkeyValue::Null);
    };
    // The row is the declared base .. id; check it before the pop so a refusal writes nothing.
    let row = Key::open(ctx, &call.queue.row(&id));
    row.expect(KeyType::Hash)?;
    row.hget_integer(c"attempts")?;

    pending.zpop(&id);
    let attempts = row.hincrby(c"attempts", 1)?;
    row.hset(&[(c"state", b"active")]);
    active.zadd(score_after(now_ms(), lease_ms), &id);
    let payload = row.hget(c"payload").unwrap_or_default();
    Ok(ValkeyValue::Array(vec![
        ValkeyValue::StringBuffer(id),
        ValkeyValue::StringBuffer(payload),
        ValkeyValue::Integer(attempts),
    ]))
}

/// `EMQ.COMPLETE 3 <active> <row> <metrics:completed> <id> <token>` → 1 done, 0 no row.
pub fn complete(ctx: &Context, argv: &[ValkeyString]) -> ValkeyResult {
    let call = admit(ctx, &COMPLETE, argv)?;
    let id = call.arg(0);
    let row = Key::open(ctx, call.key(1));
    if !row.exists() {
        return Ok(ValkeyValue::Integer(0));
    }
    check_token(&row, &call, 1)?;
    let active = Key::open(ctx, call.key(0));
    let completed = Key::open(ctx, call.key(2));
    active.expect(KeyType::ZSet)?;
    completed.expect(KeyType::Hash)?;
    completed.hget_integer(c"count")?;

    active.zrem(id);
    row.delete();
    completed.hincrby(c"count", 1)?;
    Ok(ValkeyValue::Integer(1))
}

/// `EMQ.RETRY 5 <active> <schedule> <dead> <row> <metrics:failed> <id> <token> <delay_ms>
/// <max_attempts> <error>` → `scheduled`, `dead`, or 0 no row.
pub fn retry(ctx: &Context, argv: &[ValkeyString]) -> ValkeyResult {
    let call = admit(ctx, &RETRY, argv)?;
    let delay_ms = call.int_arg(2)?;
    let max_attempts = call.int_arg(3)?;
    let (id, error) = (call.arg(0), call.arg(4));
    let row = Key::open(ctx, call.key(3));
    if !row.exists() {
        return Ok(ValkeyValue::Integer(0));
    }
    check_token(&row, &call, 1)?;
    let attempts = row.hget_integer(c"attempts")?;
    let active = Key::open(ctx, call.key(0));
    active.expect(KeyType::ZSet)?;
    let out_of_attempts = attempts >= max_attempts;
    // Open only the keys of the branch taken, and check them before the first write.
    let (target, failed) = if out_of_attempts {
        let dead = Key::open(ctx, call.key(2));
        let failed = Key::open(ctx, call.key(4));
        dead.expect(KeyType::ZSet)?;
        failed.expect(KeyType::Hash)?;
        failed.hget_integer(c"count")?;
        (dead, Some(failed))
    } else {
        let schedule = Key::open(ctx, call.key(1));
        schedule.expect(KeyType::ZSet)?;
        (schedule, None)
    };

    row.hset(&[(c"last_error", error)]);
    active.zrem(id);
    match failed {
        Some(failed) => {
            row.hset(&[(c"state", b"dead")]);
            target.zadd(0.0, id);
            failed.hincrby(c"count", 1)?;
            Ok(ValkeyValue::BulkString("dead".into()))
        }
        None => {
            row.hset(&[(c"state", b"scheduled")]);
            target.zadd(score_after(now_ms(), delay_ms), id);
            Ok(ValkeyValue::BulkString("scheduled".into()))
        }
    }
}

/// The fencing check: the token (argument `token_arg`) must be the row's `attempts`, byte for
/// byte; a row without `attempts` reads as the empty string.
fn check_token(row: &Key, call: &Call, token_arg: usize) -> Result<(), ValkeyError> {
    row.expect(KeyType::Hash)?;
    let attempts = row.hget(c"attempts").unwrap_or_default();
    let token = call.arg(token_arg);
    if attempts != token {
        return Err(ValkeyError::String(wire::stale(
            &attempts,
            call.arg(0),
            token,
        )));
    }
    Ok(())
}
