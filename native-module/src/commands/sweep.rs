//! The sweeps: promote and reap move ids whose time has come (score ≤ server now) from one sorted
//! set back to pending, and mark their rows pending.

use super::admit;
use crate::layout::{Layout, PROMOTE, REAP};
use crate::shared::shared;
use crate::store::{now_ms, Key};
use crate::strings::{Owned, Str};
use valkey_module::{Context, KeyType, ValkeyResult, ValkeyValue};

/// `EMQ.PROMOTE 3 <schedule> <pending> <row-base> <batch>` → ids moved.
pub fn promote(ctx: &Context, argv: &[Str]) -> ValkeyResult {
    move_due(ctx, &PROMOTE, argv)
}

/// `EMQ.REAP 3 <active> <pending> <row-base> <batch>` → ids moved.
/// A lease whose deadline is at or before now has passed.
pub fn reap(ctx: &Context, argv: &[Str]) -> ValkeyResult {
    move_due(ctx, &REAP, argv)
}

/// `ZRANGEBYSCORE from -inf now LIMIT 0 batch` (a negative batch is no limit, as for the
/// command); for each id: `ZREM from`, `ZADD pending 0`, `HSET row-base..id state pending`.
fn move_due(ctx: &Context, layout: &'static Layout, argv: &[Str]) -> ValkeyResult {
    let call = admit(ctx, layout, argv)?;
    let batch = call.int_arg(0)?;
    let s = shared();
    let from = Key::open(ctx, call.key(0));
    let pending = Key::open(ctx, call.key(1));
    from.expect(KeyType::ZSet)?;
    pending.expect(KeyType::ZSet)?;

    let ids = from.zrange_by_score(f64::NEG_INFINITY, now_ms() as f64, batch);
    // Every row is opened and checked before the first move, so a refusal writes nothing.
    let base = call.key(2).bytes();
    let names: Vec<Owned> = ids
        .iter()
        .map(|id| Owned::concat(ctx, base, id.bytes()))
        .collect();
    let rows = names
        .iter()
        .map(|name| {
            let row = Key::open(ctx, name.str());
            row.expect(KeyType::Hash).map(|()| row)
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Each id's writes and events come in the script's order; the moves reach the replicas as one
    // `ZREM from id…` and one `ZADD pending 0 id…` for the batch (each row's `HSET` is its own).
    for (id, row) in ids.iter().zip(&rows) {
        from.zrem_batched(id.str());
        pending.zadd_zero_batched(id.str());
        row.hset(&[(s.state, s.pending)]);
    }
    from.replicate_zrem_batch(&ids);
    pending.replicate_zadd_zero_batch(&ids);
    Ok(ValkeyValue::Integer(ids.len() as i64))
}
