//! How a transition reaches the replicas and the AOF: as its effects (the default; a replica needs
//! no module) or, for the verbs whose writes are a pure function of their arguments and the
//! dataset (enqueue, schedule, complete: no clock, no randomness), as the `EMQ.*` command itself,
//! which the replica runs again. One verbatim call replaces up to three effect lookups.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use valkey_module::{raw, Context};

/// The load arguments that switch the pure verbs to verbatim replication.
pub const VERBATIM_ARGS: [&str; 2] = ["replicate", "verbatim"];

static VERBATIM: AtomicBool = AtomicBool::new(false);

// The running call: 0 effects replicate, 1 effects are held back, 2 held back and one was due.
static CALL: AtomicU8 = AtomicU8::new(0);

pub fn set_verbatim(on: bool) {
    VERBATIM.store(on, Ordering::Relaxed);
}

/// Called by each effect: whether to replicate it (false while a verbatim call runs; the call then
/// knows it wrote, so it replicates itself once at the end).
pub fn effect_due() -> bool {
    match CALL.load(Ordering::Relaxed) {
        0 => true,
        _ => {
            CALL.store(2, Ordering::Relaxed);
            false
        }
    }
}

/// Starts a call of a pure verb; effects are held back when the module loaded with verbatim on.
pub fn begin(pure_verb: bool) {
    let held = pure_verb && VERBATIM.load(Ordering::Relaxed);
    CALL.store(u8::from(held), Ordering::Relaxed);
}

/// Ends the call: a held-back call that wrote anything replicates as the command it arrived as.
pub fn end(ctx: &Context) {
    if CALL.swap(0, Ordering::Relaxed) == 2 {
        unsafe { raw::RedisModule_ReplicateVerbatim.unwrap()(ctx.get_raw()) };
    }
}
