//! The transitions, grouped by concern, and the checks every call passes first.
//!
//! Check order (docs/wire.md): key count → layout (`Queue::from_key` on key 1, then every key) →
//! server mode → wire identity → transition. On a cluster the server's own routing (`CROSSSLOT`,
//! `MOVED`, and mid-migration `ASK` or `TRYAGAIN`) answers before the module is called at all.
//! Nothing is written before the transition, and a transition checks everything it can refuse
//! for before its first write, so a refusal writes nothing.

pub mod admission;
pub mod lease;
pub mod sweep;

use crate::layout::{Bytes, Layout};
use crate::shared::shared;
use crate::store::Key;
use crate::strings::Str;
use crate::wire::{self, Identity};
use valkey_module::{Context, KeyType, ValkeyError};

impl Bytes for Str<'_> {
    fn bytes(&self) -> &[u8] {
        Str::bytes(*self)
    }
}

/// A call that passed every check before the transition: its keys and arguments, as the strings
/// the command arrived with.
pub struct Call<'a> {
    pub layout: &'static Layout,
    keys: &'a [Str<'a>],
    args: &'a [Str<'a>],
}

impl<'a> Call<'a> {
    /// Declared key `i` (0-based), byte-identical to the one the layout check expected.
    pub fn key(&self, i: usize) -> Str<'a> {
        self.keys[i]
    }

    /// Argument `i` (0-based).
    pub fn arg(&self, i: usize) -> Str<'a> {
        self.args[i]
    }

    /// Argument `i` as a base-10 integer, refused by its name from the verb's layout.
    pub fn int_arg(&self, i: usize) -> Result<i64, ValkeyError> {
        let value = self.arg(i).bytes();
        wire::parse_integer(value)
            .ok_or_else(|| ValkeyError::String(wire::not_an_integer(self.layout.args[i], value)))
    }
}

// panel: admit (the course shows these lines: src/lib/source.ts)
/// Runs the checks that come before every transition, in the order of docs/wire.md.
/// `argv` is the command as received: name, numkeys, keys…, args….
pub fn admit<'a>(
    ctx: &Context,
    layout: &'static Layout,
    argv: &'a [Str<'a>],
) -> Result<Call<'a>, ValkeyError> {
    let numkeys = argv.get(1).ok_or(ValkeyError::WrongArity)?.bytes();
    let numkeys = wire::parse_integer(numkeys)
        .ok_or_else(|| ValkeyError::String(wire::not_an_integer("numkeys", numkeys)))?;
    layout
        .check_key_count(numkeys)
        .map_err(|e| ValkeyError::String(e.to_string()))?;

    // The count is the verb's, so only the argument count can still be off.
    let first_arg = 2 + layout.numkeys();
    if argv.len() != first_arg + layout.args.len() {
        return Err(ValkeyError::WrongArity);
    }
    let (keys, args) = (&argv[2..first_arg], &argv[first_arg..]);
    layout
        .check(keys, args)
        .map_err(|e| ValkeyError::String(e.to_string()))?;

    // `{emq}:version` is on slot 9051, another slot than almost every queue's: on a cluster the read
    // below would be a cross-slot access, so the module refuses cluster mode outright. (A cluster
    // node calls the module only for a slot it serves: MOVED, ASK and TRYAGAIN are answered before.)
    if shared().cluster {
        return Err(ValkeyError::Str(wire::CLUSTER_MODE));
    }
    read_identity(ctx)?;

    Ok(Call { layout, keys, args })
}
// end of panel: admit

/// The native fence: reads `{emq}:version` and refuses anything but this module's identity.
fn read_identity(ctx: &Context) -> Result<(), ValkeyError> {
    let version = Key::open_read(ctx, shared().version_key);
    let found = match version.kind() {
        KeyType::Empty => Identity::Absent,
        KeyType::String => Identity::Value(version.string_bytes().unwrap_or_default()),
        other => Identity::OtherType(type_name(other)),
    };
    wire::check_identity(found).map_err(ValkeyError::String)
}

/// The name `TYPE` gives a key of this kind.
fn type_name(kind: KeyType) -> &'static str {
    match kind {
        KeyType::Empty => "none",
        KeyType::String => "string",
        KeyType::List => "list",
        KeyType::Hash => "hash",
        KeyType::Set => "set",
        KeyType::ZSet => "zset",
        KeyType::Module => "module value",
        KeyType::Stream => "stream",
    }
}

/// Server now plus a delay, in milliseconds (saturating: a score is a double anyway).
pub fn score_after(now_ms: i64, delay_ms: i64) -> i64 {
    now_ms.saturating_add(delay_ms)
}
