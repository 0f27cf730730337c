//! trafikey — the EchoMQ native module: one `EMQ.*` command per core job transition.
//!
//! Every command takes `<numkeys> <key…> <arg…>`, the same declared keys and arguments as the
//! scripted executor's `EVALSHA`, checks them in the order of `docs/wire.md` (key count → layout →
//! server mode → wire identity) and runs its transition atomically.

use valkey_module::{valkey_module, Context, Status, ValkeyResult, ValkeyString};

pub mod commands;
pub mod keyspace;
pub mod layout;
pub mod shared;
pub mod store;
pub mod wire;

#[cfg(test)]
mod fixtures;

use crate::commands::{admission, lease, sweep};

pub const MODULE_NAME: &str = "trafikey";
pub const MODULE_VERSION: i32 = 1;
/// The only server line this module is built and verified against.
pub const MIN_SERVER_VERSION: (i32, i32, i32) = (8, 0, 0);

// The server's allocator backs the module; unit tests run without a server, so they keep the
// system allocator (the Valkey one aborts when no server has lent it its functions).
#[cfg(not(test))]
type Allocator = valkey_module::alloc::ValkeyAlloc;
#[cfg(not(test))]
const ALLOCATOR: Allocator = valkey_module::alloc::ValkeyAlloc;
#[cfg(test)]
type Allocator = std::alloc::System;
#[cfg(test)]
const ALLOCATOR: Allocator = std::alloc::System;

fn initialize(ctx: &Context, _args: &[ValkeyString]) -> Status {
    let version = match ctx.get_server_version() {
        Ok(version) => version,
        Err(e) => {
            ctx.log_warning(&format!(
                "trafikey refuses to load: cannot read the server version: {e}"
            ));
            return Status::Err;
        }
    };
    let found = (version.major, version.minor, version.patch);
    if found < MIN_SERVER_VERSION {
        ctx.log_warning(&format!(
            "trafikey refuses to load: it needs Valkey {}.{}.{} or later but found {}.{}.{}",
            MIN_SERVER_VERSION.0,
            MIN_SERVER_VERSION.1,
            MIN_SERVER_VERSION.2,
            found.0,
            found.1,
            found.2
        ));
        return Status::Err;
    }
    shared::init(ctx);
    Status::Ok
}

/// Command handler for EMQ.ENQUEUE 2 <row> <pending> <id> <payload>
fn emq_enqueue_command(ctx: &Context, args: Vec<ValkeyString>) -> ValkeyResult {
    admission::enqueue(ctx, &args)
}

/// Command handler for EMQ.SCHEDULE 2 <row> <schedule> <id> <payload> <run_at_ms>
fn emq_schedule_command(ctx: &Context, args: Vec<ValkeyString>) -> ValkeyResult {
    admission::schedule(ctx, &args)
}

/// Command handler for EMQ.CLAIM 3 <pending> <active> <row-base> <lease_ms>
fn emq_claim_command(ctx: &Context, args: Vec<ValkeyString>) -> ValkeyResult {
    lease::claim(ctx, &args)
}

/// Command handler for EMQ.COMPLETE 3 <active> <row> <metrics:completed> <id> <token>
fn emq_complete_command(ctx: &Context, args: Vec<ValkeyString>) -> ValkeyResult {
    lease::complete(ctx, &args)
}

/// Command handler for:
/// EMQ.RETRY 5 <active> <schedule> <dead> <row> <metrics:failed> <id> <token> <delay_ms> <max_attempts> <error>
fn emq_retry_command(ctx: &Context, args: Vec<ValkeyString>) -> ValkeyResult {
    lease::retry(ctx, &args)
}

/// Command handler for EMQ.PROMOTE 3 <schedule> <pending> <row-base> <batch>
fn emq_promote_command(ctx: &Context, args: Vec<ValkeyString>) -> ValkeyResult {
    sweep::promote(ctx, &args)
}

/// Command handler for EMQ.REAP 3 <active> <pending> <row-base> <batch>
fn emq_reap_command(ctx: &Context, args: Vec<ValkeyString>) -> ValkeyResult {
    sweep::reap(ctx, &args)
}

//////////////////////////////////////////////////////

/// The last key position a verb registers: 1 + numkeys (the command name is 0, numkeys is 1).
const fn last_key(layout: &layout::Layout) -> i32 {
    1 + layout.keys.len() as i32
}

// Key positions: first key 2, last key 1 + numkeys, step 1 (numkeys is fixed per verb), so ACLs
// and `COMMAND GETKEYS` see exactly the declared keys.
valkey_module! {
    name: MODULE_NAME,
    version: MODULE_VERSION,
    allocator: (Allocator, ALLOCATOR),
    data_types: [],
    init: initialize,
    commands: [
        ["EMQ.ENQUEUE", emq_enqueue_command, "write deny-oom", 2, last_key(&layout::ENQUEUE), 1],
        ["EMQ.SCHEDULE", emq_schedule_command, "write deny-oom", 2, last_key(&layout::SCHEDULE), 1],
        ["EMQ.CLAIM", emq_claim_command, "write deny-oom", 2, last_key(&layout::CLAIM), 1],
        ["EMQ.COMPLETE", emq_complete_command, "write deny-oom", 2, last_key(&layout::COMPLETE), 1],
        ["EMQ.RETRY", emq_retry_command, "write deny-oom", 2, last_key(&layout::RETRY), 1],
        ["EMQ.PROMOTE", emq_promote_command, "write deny-oom", 2, last_key(&layout::PROMOTE), 1],
        ["EMQ.REAP", emq_reap_command, "write deny-oom", 2, last_key(&layout::REAP), 1],
    ],
}
