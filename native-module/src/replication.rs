//! How a transition reaches the replicas and the AOF, one way per load (`replicate <way>`):
//!
//! - **effects** (the default): each write as the plain command a script would run, each its own
//!   `RedisModule_Replicate` (two or more reach the replica wrapped in `MULTI`/`EXEC`). A replica
//!   needs neither the module nor Lua, and applies them at the cost of the plain commands.
//! - **script**: the call's effects, in the same order, leave as ONE `EVAL` of a fixed body
//!   ([`crate::effects::APPLY_EFFECTS`]) that runs them from its `KEYS` and `ARGV`: one command
//!   lookup and no transaction on the primary instead of one lookup per effect. The body reads
//!   nothing and asks no clock, so any server with Lua scripting follows (no module) — but running
//!   the script costs the replica two to three times what the plain effects do (the module's README
//!   has the figures).
//! - **verbatim**: the verbs whose writes are a pure function of their arguments and the dataset
//!   (enqueue, schedule, complete) go as the `EMQ.*` call itself, which the replica runs again (it
//!   must load the module); the others as their effects.

use std::cell::RefCell;
use std::os::raw::c_longlong;
use std::ptr;
use std::sync::atomic::{AtomicU8, Ordering};

use valkey_module::{raw, Context};

use crate::effects::Command;
use crate::shared::shared;
use crate::strings::{raws, Owned, RawString, Str};

/// At most this many members per op: Lua's `unpack` refuses more than about 8,000 values, and a
/// sweep's batch is the caller's. A longer batch is several ops (`ZREM k m…`, `ZREM k m…`).
pub const MEMBERS_PER_OP: usize = 1_000;

/// The replication ways, as the load argument after `replicate` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    Script = 0,
    Effects = 1,
    Verbatim = 2,
}

impl Way {
    pub const NAMES: [(&'static str, Way); 3] = [
        ("script", Way::Script),
        ("effects", Way::Effects),
        ("verbatim", Way::Verbatim),
    ];

    pub fn named(name: &str) -> Option<Way> {
        Self::NAMES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|&(_, way)| way)
    }
}

static WAY: AtomicU8 = AtomicU8::new(Way::Effects as u8);

pub fn set_way(way: Way) {
    WAY.store(way as u8, Ordering::Relaxed);
}

fn way() -> Way {
    match WAY.load(Ordering::Relaxed) {
        0 => Way::Script,
        2 => Way::Verbatim,
        _ => Way::Effects,
    }
}

/// How the running call replicates: each effect as it is made, gathered into one `EVAL`, or held
/// back for a verbatim call (which then knows whether it wrote).
const EFFECTS: u8 = 0;
const SCRIPT: u8 = 1;
const HELD: u8 = 2;
const HELD_AND_DUE: u8 = 3;

// A plain static, read by every effect: cheaper than the thread-local the batch needs.
static CALL: AtomicU8 = AtomicU8::new(EFFECTS);

/// The running call's gathered `EVAL`: one key per op, and per op its command, count and arguments.
/// A string the call did not arrive with and the module did not make at load (a row name, a popped
/// id, a printed score) is held — retained, or made for the batch — until the call ends, so one a
/// transition made and dropped stays alive for the `EVAL`.
struct Batch {
    /// The command's own strings (`argv` as received), which live for the whole call.
    received: (*const RawString, usize),
    keys: Vec<RawString>,
    argv: Vec<RawString>,
    held: Vec<RawString>,
}

thread_local! {
    // Commands run on the server's main thread, one at a time; the vectors keep their capacity.
    static BATCH: RefCell<Batch> = const {
        RefCell::new(Batch {
            received: (ptr::null(), 0),
            keys: Vec::new(),
            argv: Vec::new(),
            held: Vec::new(),
        })
    };
}

/// Starts a call of the command `received`; `pure_verb` says whether its writes are a pure
/// function of its arguments.
pub fn begin(pure_verb: bool, received: &[Str]) {
    let call = match way() {
        Way::Script => SCRIPT,
        Way::Verbatim if pure_verb => HELD,
        Way::Effects | Way::Verbatim => EFFECTS,
    };
    CALL.store(call, Ordering::Relaxed);
    if call == SCRIPT {
        let received = raws(received);
        BATCH.with_borrow_mut(|batch| batch.received = (received.as_ptr(), received.len()));
    }
}

/// Replicates `command key args…` (strings alive for this call).
pub fn effect(ctx: &Context, command: Command, key: Str, args: &[Str]) {
    match CALL.load(Ordering::Relaxed) {
        EFFECTS => replicate_now(ctx, command, key, args),
        SCRIPT => BATCH.with_borrow_mut(|batch| batch.push(command, key, None, args)),
        _ => CALL.store(HELD_AND_DUE, Ordering::Relaxed),
    }
}

/// Replicates `ZADD key score member` for an integral score.
pub fn zadd(ctx: &Context, key: Str, score: i64, member: Str) {
    let zero = shared().zero;
    match CALL.load(Ordering::Relaxed) {
        EFFECTS if score == 0 => replicate_now(ctx, Command::Zadd, key, &[zero, member]),
        // Any other score goes as a number (`l`), printed by the server straight into the effect.
        EFFECTS => unsafe {
            let replicate = raw::RedisModule_Replicate.unwrap();
            let (zadd, format) = (Command::Zadd.name().as_ptr(), c"sls".as_ptr());
            let (key, member) = (key.raw(), member.raw());
            replicate(
                ctx.get_raw(),
                zadd,
                format,
                key,
                score as c_longlong,
                member,
            );
        },
        SCRIPT => BATCH.with_borrow_mut(|batch| match score {
            0 => batch.push(Command::Zadd, key, None, &[zero, member]),
            _ => batch.push(Command::Zadd, key, Some(score), &[member]),
        }),
        _ => CALL.store(HELD_AND_DUE, Ordering::Relaxed),
    }
}

/// Replicates `command key [score] m [score] m…` for a batch of members (a sweep's moves): one
/// command, or in a script one op per [`MEMBERS_PER_OP`] members.
pub fn members(ctx: &Context, command: Command, key: Str, score: Option<Str>, members: &[Owned]) {
    if members.is_empty() {
        return;
    }
    let each = 1 + usize::from(score.is_some());
    match (CALL.load(Ordering::Relaxed), members, score) {
        // One member needs no vector.
        (EFFECTS, [member], Some(score)) => {
            replicate_now(ctx, command, key, &[score, member.str()]);
        }
        (EFFECTS, [member], None) => replicate_now(ctx, command, key, &[member.str()]),
        (EFFECTS, _, _) => {
            let mut args = Vec::with_capacity(members.len() * each);
            for member in members {
                args.extend(score);
                args.push(member.str());
            }
            replicate_now(ctx, command, key, &args);
        }
        (SCRIPT, _, _) => BATCH.with_borrow_mut(|batch| {
            for chunk in members.chunks(MEMBERS_PER_OP) {
                batch.op(command, key, chunk.len() * each);
                for member in chunk {
                    if let Some(score) = score {
                        batch.arg(score);
                    }
                    batch.arg(member.str());
                }
            }
        }),
        _ => CALL.store(HELD_AND_DUE, Ordering::Relaxed),
    }
}

/// Ends the call: a gathered script goes out as one `EVAL` (then the batch lets go of what it
/// held); a verbatim call that wrote goes out as the command it arrived as.
pub fn end(ctx: &Context) {
    match CALL.swap(EFFECTS, Ordering::Relaxed) {
        SCRIPT => BATCH.with_borrow_mut(|batch| {
            if !batch.keys.is_empty() {
                batch.replicate(ctx);
            }
            batch.release();
        }),
        HELD_AND_DUE => unsafe {
            raw::RedisModule_ReplicateVerbatim.unwrap()(ctx.get_raw());
        },
        _ => {}
    }
}

impl Batch {
    /// Adds one op: its key, its command, its argument count, then `score` (printed) and `args`.
    fn push(&mut self, command: Command, key: Str, score: Option<i64>, args: &[Str]) {
        self.op(command, key, args.len() + usize::from(score.is_some()));
        if let Some(score) = score {
            let create = unsafe { raw::RedisModule_CreateStringFromLongLong.unwrap() };
            let printed = unsafe { create(ptr::null_mut(), score) };
            self.held.push(printed);
            self.argv.push(printed);
        }
        for &arg in args {
            self.arg(arg);
        }
    }

    /// Starts an op of `count` arguments after its key: the key, the command and the count.
    fn op(&mut self, command: Command, key: Str, count: usize) {
        let key = self.hold(key);
        self.keys.push(key);
        self.argv.push(shared().commands[command as usize].raw());
        let count = self.count(count);
        self.argv.push(count);
    }

    fn arg(&mut self, arg: Str) {
        let arg = self.hold(arg);
        self.argv.push(arg);
    }

    /// The string, held unless the call arrived with it or the module made it at load.
    fn hold(&mut self, string: Str) -> RawString {
        let string = string.raw();
        let (received, len) = self.received;
        let arrived = unsafe { std::slice::from_raw_parts(received, len) };
        if !arrived.contains(&string) && !shared().made_at_load(string) {
            unsafe { raw::RedisModule_RetainString.unwrap()(ptr::null_mut(), string) };
            self.held.push(string);
        }
        string
    }

    /// A count: one made at load when small, else a new string the batch holds.
    fn count(&mut self, count: usize) -> RawString {
        if let Some(made) = shared().counts.get(count) {
            return made.raw();
        }
        let create = unsafe { raw::RedisModule_CreateStringFromLongLong.unwrap() };
        let printed = unsafe { create(ptr::null_mut(), count as c_longlong) };
        self.held.push(printed);
        printed
    }

    /// `EVAL <body> <numkeys> <keys…> <argv…>` as one propagated command. Up to [`WIDE`] strings go
    /// as one `s` each, so the server sizes the command's vector once (a `v` always reallocates it).
    fn replicate(&mut self, ctx: &Context) {
        let numkeys = self.count(self.keys.len());
        let body = shared().apply_effects.raw();
        let replicate = unsafe { raw::RedisModule_Replicate.unwrap() };
        let (ctx, eval) = (ctx.get_raw(), c"EVAL".as_ptr());
        let len = 2 + self.keys.len() + self.argv.len();
        if len <= WIDE {
            let mut a = [ptr::null_mut(); WIDE];
            a[0] = body;
            a[1] = numkeys;
            a[2..2 + self.keys.len()].copy_from_slice(&self.keys);
            a[2 + self.keys.len()..len].copy_from_slice(&self.argv);
            // The format names `len` strings; the server reads no more than those of the `WIDE` passed.
            let format = ESSES[WIDE - len..].as_ptr().cast();
            unsafe {
                replicate(
                    ctx, eval, format, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                    a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20],
                    a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28], a[29], a[30], a[31],
                );
            }
        } else {
            let mut all = Vec::with_capacity(len);
            all.extend([body, numkeys]);
            all.extend_from_slice(&self.keys);
            all.extend_from_slice(&self.argv);
            unsafe { replicate(ctx, eval, c"v".as_ptr(), all.as_mut_ptr(), len) };
        }
    }

    fn release(&mut self) {
        let free = unsafe { raw::RedisModule_FreeString.unwrap() };
        for string in self.held.drain(..) {
            unsafe { free(ptr::null_mut(), string) };
        }
        self.keys.clear();
        self.argv.clear();
    }
}

/// How many strings an `EVAL` passes one by one (a claim's is 18, a dead retry's 23).
const WIDE: usize = 32;
/// `WIDE` format letters and the terminating NUL: the last n + 1 bytes are the format for n.
const ESSES: &[u8; WIDE + 1] = b"ssssssssssssssssssssssssssssssss\0";

/// `command key args…` as one propagated command (the effects way).
fn replicate_now(ctx: &Context, command: Command, key: Str, args: &[Str]) {
    let replicate = unsafe { raw::RedisModule_Replicate.unwrap() };
    let (ctx, cmd, key, a) = (
        ctx.get_raw(),
        command.name().as_ptr(),
        key.raw(),
        raws(args),
    );
    // Each string its own `s` for the transitions' counts (the server sizes the effect's vector
    // once); a sweep's batch as a vector.
    unsafe {
        match a.len() {
            0 => replicate(ctx, cmd, c"s".as_ptr(), key),
            1 => replicate(ctx, cmd, c"ss".as_ptr(), key, a[0]),
            2 => replicate(ctx, cmd, c"sss".as_ptr(), key, a[0], a[1]),
            4 => replicate(ctx, cmd, c"sssss".as_ptr(), key, a[0], a[1], a[2], a[3]),
            6 => replicate(
                ctx,
                cmd,
                c"sssssss".as_ptr(),
                key,
                a[0],
                a[1],
                a[2],
                a[3],
                a[4],
                a[5],
            ),
            // The server only reads the vector (it takes its own references to the strings).
            n => replicate(ctx, cmd, c"sv".as_ptr(), key, a.as_ptr().cast_mut(), n),
        };
    }
}
