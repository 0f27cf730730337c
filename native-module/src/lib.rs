//! trafikey — the EchoMQ native module: one `EMQ.*` command per core job transition.
//!
//! Every command takes `<numkeys> <key…> <arg…>`, the same declared keys and arguments as the
//! scripted executor's `EVALSHA`, checks them in the order of `docs/wire.md` (key count → layout →
//! server mode → wire identity) and runs its transition atomically.

use std::ffi::CStr;
use std::os::raw::c_int;

use valkey_module::{raw, valkey_module, Context, Status, ValkeyResult, ValkeyString};

pub mod commands;
pub mod effects;
pub mod keyspace;
pub mod layout;
pub mod replication;
pub mod shared;
pub mod store;
pub mod strings;
pub mod wire;

#[cfg(test)]
mod fixtures;

use crate::commands::{admission, lease, sweep};
use crate::replication::Way;
use crate::strings::Str;

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

/// A load argument: keep the module out of atomic slot migration (to show the refusal).
pub const NO_ATOMIC_SLOT_MIGRATION: &str = "no-atomic-slot-migration";

/// Whether the load arguments let the module declare atomic-slot-migration support, or why not.
pub fn atomic_slot_migration_from_args(args: &[String]) -> Result<bool, String> {
    load_options(args).map(|(atomic, _)| atomic)
}

/// The load arguments as (declare atomic slot migration, how to replicate): each of
/// `no-atomic-slot-migration` and `replicate <script|effects|verbatim>` at most once, in either
/// order; without `replicate`, the effects way (`replication.rs`).
pub fn load_options(args: &[String]) -> Result<(bool, Way), String> {
    let (mut atomic, mut way, mut rest) = (true, None, args);
    loop {
        match rest {
            [] => return Ok((atomic, way.unwrap_or(Way::Effects))),
            [first, tail @ ..] if first == NO_ATOMIC_SLOT_MIGRATION && atomic => {
                atomic = false;
                rest = tail;
            }
            [a, b, tail @ ..] if a == "replicate" && way.is_none() && Way::named(b).is_some() => {
                way = Way::named(b);
                rest = tail;
            }
            _ => {
                return Err(format!(
                    "trafikey refuses to load: unknown arguments {args:?}; allowed, each at most once: {NO_ATOMIC_SLOT_MIGRATION}, replicate script|effects|verbatim"
                ))
            }
        }
    }
}

fn initialize(ctx: &Context, args: &[ValkeyString]) -> Status {
    let args: Vec<String> = args.iter().map(|arg| arg.to_string_lossy()).collect();
    let (atomic, way) = match load_options(&args) {
        Ok(options) => options,
        Err(why) => {
            ctx.log_warning(&why);
            return Status::Err;
        }
    };
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
    // Every `RedisModule_Replicate` here names a command the server has (`HSET`, `HINCRBY`, `ZADD`,
    // `ZREM`, `DEL`, `EVAL`), so the module skips the server's check of it: from Valkey 8.1
    // (valkey-io/valkey#1357) that spares each effect a lookup of its command by name — an `sds`
    // copy, a split on `|`, a hash — about half of what an effect costs. (While a slot is exported
    // Valkey 9 looks the command up anyway, to route it.)
    let mut options = raw::VALKEYMODULE_OPTIONS_SKIP_COMMAND_VALIDATION as c_int;
    if atomic {
        // Valkey 9 refuses CLUSTER MIGRATESLOTS while any loaded module has not declared this. The
        // module may: it keeps no state outside the keyspace, has no data type of its own, subscribes
        // to no keyspace event, and replicates every write as the plain commands a script would run
        // (or, with `replicate script`, inside one `EVAL` whose keys are declared, all in the queue's
        // slot), which is what the target receives while the slot streams.
        options |= raw::VALKEYMODULE_OPTIONS_HANDLE_ATOMIC_SLOT_MIGRATION as c_int;
    }
    // Valkey 8.0 stores bits it does not know and never reads them. (The crate names these flags only
    // under its Valkey 9 feature, which would also make the module require Valkey 9's API at load;
    // the raw call and constants do not.)
    unsafe { raw::RedisModule_SetModuleOptions.unwrap()(ctx.get_raw(), options) };
    replication::set_way(way);
    shared::init(ctx);
    register_commands(ctx)
}

/// A verb's handler: the command's strings, read where the server keeps them (no copy, no vector).
type Handler = for<'a> fn(&Context, &'a [Str<'a>]) -> ValkeyResult;

/// The server's entry point for one verb, around its handler.
macro_rules! entry {
    ($handler:path) => {
        entry!($handler, false)
    };
    ($handler:path, $pure:expr) => {{
        extern "C" fn entry(
            ctx: *mut raw::RedisModuleCtx,
            argv: *mut *mut raw::RedisModuleString,
            argc: c_int,
        ) -> c_int {
            let context = Context::new(ctx);
            // The server passes `argc` strings that live for the whole call.
            let args = unsafe { Str::argv(argv, argc as usize) };
            let run: Handler = $handler;
            replication::begin($pure, args);
            let reply = run(&context, args);
            replication::end(&context);
            context.reply(reply) as c_int
        }
        entry as unsafe extern "C" fn(_, _, _) -> _
    }};
}

/// Every verb: its name, its entry point and its declared layout.
///
/// Key positions: first key 2, last key 1 + numkeys, step 1 (numkeys is fixed per verb), so ACLs
/// and `COMMAND GETKEYS` see exactly the declared keys.
const COMMANDS: [(&CStr, raw::RedisModuleCmdFunc, &layout::Layout); 7] = [
    // EMQ.ENQUEUE 2 <row> <pending> <id> <payload>
    (
        c"EMQ.ENQUEUE",
        Some(entry!(admission::enqueue, true)),
        &layout::ENQUEUE,
    ),
    // EMQ.SCHEDULE 2 <row> <schedule> <id> <payload> <run_at_ms>
    (
        c"EMQ.SCHEDULE",
        Some(entry!(admission::schedule, true)),
        &layout::SCHEDULE,
    ),
    // EMQ.CLAIM 3 <pending> <active> <row-base> <lease_ms>
    (c"EMQ.CLAIM", Some(entry!(lease::claim)), &layout::CLAIM),
    // EMQ.COMPLETE 3 <active> <row> <metrics:completed> <id> <token>
    (
        c"EMQ.COMPLETE",
        Some(entry!(lease::complete, true)),
        &layout::COMPLETE,
    ),
    // EMQ.RETRY 5 <active> <schedule> <dead> <row> <metrics:failed>
    //           <id> <token> <delay_ms> <max_attempts> <error>
    (c"EMQ.RETRY", Some(entry!(lease::retry)), &layout::RETRY),
    // EMQ.PROMOTE 3 <schedule> <pending> <row-base> <batch>
    (
        c"EMQ.PROMOTE",
        Some(entry!(sweep::promote)),
        &layout::PROMOTE,
    ),
    // EMQ.REAP 3 <active> <pending> <row-base> <batch>
    (c"EMQ.REAP", Some(entry!(sweep::reap)), &layout::REAP),
];

fn register_commands(ctx: &Context) -> Status {
    for (name, entry, layout) in COMMANDS {
        let last_key = 1 + layout.keys.len() as c_int;
        let status = unsafe {
            raw::RedisModule_CreateCommand.unwrap()(
                ctx.get_raw(),
                name.as_ptr(),
                entry,
                c"write deny-oom".as_ptr(),
                2,
                last_key,
                1,
            )
        };
        if status != raw::REDISMODULE_OK as c_int {
            ctx.log_warning(&format!(
                "trafikey cannot register {}",
                name.to_string_lossy()
            ));
            return Status::Err;
        }
    }
    Status::Ok
}

valkey_module! {
    name: MODULE_NAME,
    version: MODULE_VERSION,
    allocator: (Allocator, ALLOCATOR),
    data_types: [],
    init: initialize,
    commands: [],
}

#[cfg(test)]
mod load_args_tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn opts_in_by_default_and_out_by_the_one_argument() {
        assert_eq!(atomic_slot_migration_from_args(&[]), Ok(true));
        assert_eq!(
            atomic_slot_migration_from_args(&args(&[NO_ATOMIC_SLOT_MIGRATION])),
            Ok(false)
        );
    }

    #[test]
    fn replicate_takes_one_way_in_either_place_and_defaults_to_effects() {
        assert_eq!(load_options(&[]), Ok((true, Way::Effects)));
        for (name, way) in Way::NAMES {
            assert_eq!(load_options(&args(&["replicate", name])), Ok((true, way)));
            for words in [
                &[NO_ATOMIC_SLOT_MIGRATION, "replicate", name][..],
                &["replicate", name, NO_ATOMIC_SLOT_MIGRATION][..],
            ] {
                assert_eq!(load_options(&args(words)), Ok((false, way)));
            }
        }
        for words in [
            &["replicate"][..],
            &["replicate", "lua"][..],
            &["verbatim"][..],
            &["replicate", "verbatim", "replicate", "verbatim"][..],
            &["replicate", "script", "replicate", "effects"][..],
            &[NO_ATOMIC_SLOT_MIGRATION, NO_ATOMIC_SLOT_MIGRATION][..],
        ] {
            let error = load_options(&args(words)).unwrap_err();
            assert!(
                error.contains("replicate script|effects|verbatim"),
                "{error}"
            );
        }
    }

    #[test]
    fn refuses_any_other_argument() {
        for words in [
            &["yes"][..],
            &[NO_ATOMIC_SLOT_MIGRATION, "x"][..],
            &["NO-ATOMIC-SLOT-MIGRATION"][..],
        ] {
            let error = atomic_slot_migration_from_args(&args(words)).unwrap_err();
            assert!(error.contains(NO_ATOMIC_SLOT_MIGRATION), "{error}");
        }
    }
}
