//! The lease transitions: claim hands out the oldest pending job under a lease, and its holder
//! completes or retries it. The row's `attempts` is the fencing token: a holder whose token is not
//! the row's current count has lost the lease (`EMQSTALE`).

use std::os::raw::c_long;

use super::{admit, score_after, Call};
use crate::keyspace::ROW_TYPE;
use crate::layout::{CLAIM, COMPLETE, RETRY};
use crate::shared::shared;
use crate::store::{increment, integer_field, now_ms, Key};
use crate::strings::{Owned, Str};
use crate::wire;
use valkey_module::{raw, Context, KeyType, ValkeyError, ValkeyResult, ValkeyValue};

/// `EMQ.CLAIM 3 <pending> <active> <row-base> <lease_ms>` → nil, or `[id, payload, attempts]`.
pub fn claim(ctx: &Context, argv: &[Str]) -> ValkeyResult {
    let call = admit(ctx, &CLAIM, argv)?;
    let lease_ms = call.int_arg(0)?;
    let s = shared();

    // `meta` is derived from the declared row base (`emq:{q}:job:` less `job:`, which the layout
    // check guarantees), so it shares the queue's hashtag and slot.
    let base = call.key(2).bytes();
    let meta_name = Owned::concat(ctx, &base[..base.len() - ROW_TYPE.len()], b"meta");
    let meta = Key::open_read(ctx, meta_name.str());
    meta.expect(KeyType::Hash)?;
    if meta
        .hget(s.paused)
        .is_some_and(|paused| paused.bytes() == b"1")
    {
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
    let row_name = Owned::concat(ctx, base, id.bytes());
    let row = Key::open(ctx, row_name.str());
    row.expect(KeyType::Hash)?;
    let (attempts, payload) = row.hget_pair(s.attempts, s.payload);
    let attempts = increment(integer_field(attempts.as_ref())?)?;

    pending.zpop(id.str());
    // `HINCRBY attempts 1` and `HSET state active` as one write and one effect.
    let token = Owned::integer(ctx, attempts);
    row.hset(&[(s.attempts, token.str()), (s.state, s.active)]);
    active.zadd(score_after(now_ms(), lease_ms), id.str());

    // The reply is written from the strings already in hand: the popped member and the payload.
    unsafe {
        let raw_ctx = ctx.get_raw();
        raw::RedisModule_ReplyWithArray.unwrap()(raw_ctx, 3 as c_long);
        raw::RedisModule_ReplyWithString.unwrap()(raw_ctx, id.str().raw());
        match &payload {
            Some(payload) => {
                raw::RedisModule_ReplyWithString.unwrap()(raw_ctx, payload.str().raw())
            }
            None => raw::RedisModule_ReplyWithStringBuffer.unwrap()(raw_ctx, c"".as_ptr(), 0),
        };
        raw::RedisModule_ReplyWithLongLong.unwrap()(raw_ctx, attempts);
    }
    Ok(ValkeyValue::NoReply)
}

/// `EMQ.COMPLETE 3 <active> <row> <metrics:completed> <id> <token>` → 1 done, 0 no row.
pub fn complete(ctx: &Context, argv: &[Str]) -> ValkeyResult {
    let call = admit(ctx, &COMPLETE, argv)?;
    let s = shared();
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
    let count = increment(completed.hget_integer(s.count)?)?;

    active.zrem(id);
    row.delete();
    completed.hincr_to(s.count, count);
    Ok(ValkeyValue::Integer(1))
}

/// `EMQ.RETRY 5 <active> <schedule> <dead> <row> <metrics:failed> <id> <token> <delay_ms>
/// <max_attempts> <error>` → `scheduled`, `dead`, or 0 no row.
pub fn retry(ctx: &Context, argv: &[Str]) -> ValkeyResult {
    let call = admit(ctx, &RETRY, argv)?;
    let s = shared();
    let delay_ms = call.int_arg(2)?;
    let max_attempts = call.int_arg(3)?;
    let (id, error) = (call.arg(0), call.arg(4));
    let row = Key::open(ctx, call.key(3));
    if !row.exists() {
        return Ok(ValkeyValue::Integer(0));
    }
    let attempts = check_token(&row, &call, 1)?;
    let attempts = integer_field(attempts.as_ref())?;
    let active = Key::open(ctx, call.key(0));
    active.expect(KeyType::ZSet)?;
    let out_of_attempts = attempts >= max_attempts;
    // Open only the keys of the branch taken, and check them before the first write.
    let (target, failed) = if out_of_attempts {
        let dead = Key::open(ctx, call.key(2));
        let failed = Key::open(ctx, call.key(4));
        dead.expect(KeyType::ZSet)?;
        failed.expect(KeyType::Hash)?;
        let count = increment(failed.hget_integer(s.count)?)?;
        (dead, Some((failed, count)))
    } else {
        let schedule = Key::open(ctx, call.key(1));
        schedule.expect(KeyType::ZSet)?;
        (schedule, None)
    };

    // The script's `HSET last_error` and `HSET state` as one write and one effect.
    let state = if failed.is_some() {
        s.dead
    } else {
        s.scheduled
    };
    row.hset(&[(s.last_error, error), (s.state, state)]);
    active.zrem(id);
    match failed {
        Some((failed, count)) => {
            target.zadd(0, id);
            failed.hincr_to(s.count, count);
            Ok(ValkeyValue::BulkString("dead".into()))
        }
        None => {
            target.zadd(score_after(now_ms(), delay_ms), id);
            Ok(ValkeyValue::BulkString("scheduled".into()))
        }
    }
}

/// The fencing check: the token (argument `token_arg`) must be the row's `attempts`, byte for
/// byte; a row without `attempts` reads as the empty string. Returns the row's `attempts`.
fn check_token<'c>(
    row: &Key<'c>,
    call: &Call,
    token_arg: usize,
) -> Result<Option<Owned<'c>>, ValkeyError> {
    row.expect(KeyType::Hash)?;
    let attempts = row.hget(shared().attempts);
    let found = attempts.as_ref().map_or(&b""[..], Owned::bytes);
    let token = call.arg(token_arg).bytes();
    if found != token {
        return Err(ValkeyError::String(wire::stale(
            found,
            call.arg(0).bytes(),
            token,
        )));
    }
    Ok(attempts)
}
