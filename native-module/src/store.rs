//! The module API's own key calls, wrapped once: open, type, hash get/set, sorted set
//! add/remove/range, delete.
//!
//! The low-level API neither replicates nor notifies by itself, so every write here does three
//! things in one place: apply it, hand `replication.rs` its effect — the plain command a script
//! would have run, which reaches replicas and the AOF without this module — and fire the keyspace
//! event that command fires. Reads never write.
//!
//! Nothing is copied on the way: keys open with the strings the command arrived with, fields and
//! fixed values are the strings made at load (`shared.rs`; both kinds of string are in `strings.rs`), and a member or value the server hands
//! back is used as it is for the write, the effect and the reply.
//!
//! # The rule every `unsafe` block here keeps
//! This file is the only place the module calls the server's C API on keys, and each call keeps
//! one rule: a pointer handed to the server is alive for the whole call (a command argument, a
//! string made at load, or an [`Owned`] string this wrapper frees exactly once), and a pointer the
//! server hands back (a key, a string's bytes, a range's element) is used only while the key that
//! gave it is open and unchanged — so no borrow outlives the `Key` it came from, which the
//! lifetimes on `Str` and `Key` enforce. The API's function pointers are set by the server before
//! the module loads, so `unwrap()` on them cannot fail inside a command.

use std::cell::Cell;
use std::ffi::CStr;
use std::os::raw::c_int;
use std::ptr;

use valkey_module::{raw, Context, KeyType, NotifyEvent, ValkeyError};

use crate::effects::Command;
use crate::replication;
use crate::shared::shared;
use crate::strings::{Owned, RawString, Str};

/// An open key; closed when dropped.
pub struct Key<'c> {
    ctx: &'c Context,
    name: Str<'c>,
    inner: *mut raw::RedisModuleKey,
    /// The key's type (`REDISMODULE_KEYTYPE_*`), asked once at open and kept by each write that can
    /// change it, so the checks and reads of a transition do not ask the server again.
    kind: Cell<c_int>,
}

impl<'c> Key<'c> {
    /// Opens a key for reading and writing; a missing key opens as empty.
    pub fn open(ctx: &'c Context, name: Str<'c>) -> Self {
        Self::open_mode(ctx, name, raw::KeyMode::READ | raw::KeyMode::WRITE)
    }

    /// Opens a key for reading only; a missing key opens as empty.
    pub fn open_read(ctx: &'c Context, name: Str<'c>) -> Self {
        Self::open_mode(ctx, name, raw::KeyMode::READ)
    }

    fn open_mode(ctx: &'c Context, name: Str<'c>, mode: raw::KeyMode) -> Self {
        let inner = raw::open_key(ctx.get_raw(), name.raw(), mode);
        let key = Key {
            ctx,
            name,
            inner,
            kind: Cell::new(KeyType::Empty as c_int),
        };
        key.ask_kind();
        key
    }

    pub fn kind(&self) -> KeyType {
        self.kind.get().into()
    }

    /// Asks the server the key's type again, after a write that may have emptied it.
    fn ask_kind(&self) {
        if !self.inner.is_null() {
            self.kind
                .set(unsafe { raw::RedisModule_KeyType.unwrap()(self.inner) });
        }
    }

    /// After a write that leaves the key holding `kind` (a write to an empty key creates it).
    fn now_holds(&self, kind: KeyType) {
        self.kind.set(kind as c_int);
    }

    pub fn exists(&self) -> bool {
        self.kind() != KeyType::Empty
    }

    /// Refuses (as `WRONGTYPE`, like the command would) a key that exists with another type.
    pub fn expect(&self, kind: KeyType) -> Result<(), ValkeyError> {
        match self.kind() {
            KeyType::Empty => Ok(()),
            found if found == kind => Ok(()),
            _ => Err(ValkeyError::WrongType),
        }
    }

    /// The bytes of a key the caller found to be a string (its type is looked up once, by the
    /// caller), borrowed while the key is open.
    pub fn string_bytes(&self) -> Option<&[u8]> {
        let mut len = 0;
        let dma = raw::string_dma(self.inner, &mut len, raw::KeyMode::READ);
        if dma.is_null() {
            return None;
        }
        Some(unsafe { std::slice::from_raw_parts(dma.cast::<u8>(), len) })
    }

    /// `HGET key field`; `None` for a missing key or field.
    pub fn hget(&self, field: Str) -> Option<Owned<'c>> {
        let [value] = self.hash_get([field]);
        value
    }

    /// `HMGET key a b`, in one call; a missing key or field is `None`.
    pub fn hget_pair(&self, a: Str, b: Str) -> (Option<Owned<'c>>, Option<Owned<'c>>) {
        let [a, b] = self.hash_get([a, b]);
        (a, b)
    }

    /// One `RedisModule_HashGet` for one or two fields (the API is variadic, so each count is its
    /// own call, as in [`Key::hset`]); a missing key or field is `None`.
    fn hash_get<const N: usize>(&self, fields: [Str; N]) -> [Option<Owned<'c>>; N] {
        let mut values: [RawString; N] = [ptr::null_mut(); N];
        if self.exists() {
            let get = unsafe { raw::RedisModule_HashGet.unwrap() };
            let flags = raw::REDISMODULE_HASH_NONE as c_int;
            let end = ptr::null_mut::<raw::RedisModuleString>();
            let (f, v) = (fields.map(Str::raw), values.as_mut_ptr());
            unsafe {
                match N {
                    1 => get(self.inner, flags, f[0], v, end),
                    2 => get(self.inner, flags, f[0], v, f[1], v.add(1), end),
                    _ => unreachable!("a transition reads one or two fields at once"),
                };
            }
        }
        values.map(|value| Owned::take(self.ctx, value))
    }

    /// A hash field as `HINCRBY` reads it: absent is 0, anything but an integer is refused.
    /// The transitions call it before their first write, so a refusal writes nothing.
    pub fn hget_integer(&self, field: Str) -> Result<i64, ValkeyError> {
        integer_field(self.hget(field).as_ref())
    }

    /// `HSET key field value [field value …]`, fields in the given order (the order fixes the
    /// layout of a new hash, so it is the script's order), replicated as one `HSET`.
    pub fn hset(&self, fields: &[(Str, Str)]) {
        let set = unsafe { raw::RedisModule_HashSet.unwrap() };
        let flags = raw::REDISMODULE_HASH_NONE as c_int;
        let end = ptr::null_mut::<raw::RedisModuleString>();
        let mut effect = [shared().zero; 6];
        for (i, &(field, value)) in fields.iter().enumerate() {
            effect[2 * i] = field;
            effect[2 * i + 1] = value;
        }
        let e = effect.map(Str::raw);
        unsafe {
            match fields.len() {
                1 => set(self.inner, flags, e[0], e[1], end),
                2 => set(self.inner, flags, e[0], e[1], e[2], e[3], end),
                3 => set(self.inner, flags, e[0], e[1], e[2], e[3], e[4], e[5], end),
                _ => unreachable!("a transition sets one to three fields"),
            };
        }
        self.now_holds(KeyType::Hash);
        self.effect(
            Command::Hset,
            &effect[..2 * fields.len()],
            NotifyEvent::HASH,
            c"hset",
        );
    }

    /// `HINCRBY key field 1`, given the new value (the current one plus 1, read and checked with
    /// [`increment`] before the transition's first write).
    pub fn hincr_to(&self, field: Str, next: i64) {
        let value = Owned::integer(self.ctx, next);
        unsafe {
            raw::RedisModule_HashSet.unwrap()(
                self.inner,
                raw::REDISMODULE_HASH_NONE as c_int,
                field.raw(),
                value.str().raw(),
                ptr::null_mut::<raw::RedisModuleString>(),
            );
        }
        self.now_holds(KeyType::Hash);
        let one = shared().one;
        self.effect(
            Command::Hincrby,
            &[field, one],
            NotifyEvent::HASH,
            c"hincrby",
        );
    }

    /// `ZADD key score member`; `score` is an integer (milliseconds, or 0).
    pub fn zadd(&self, score: i64, member: Str) {
        let score = score as f64;
        let mut flags: c_int = 0;
        unsafe {
            raw::RedisModule_ZsetAdd.unwrap()(self.inner, score, member.raw(), &mut flags);
        }
        self.now_holds(KeyType::ZSet);
        // The double's own integer value (every integral double below 2^63 is one; 2^63 itself
        // saturates to i64::MAX, which ZADD parses back to 2^63): the replica stores the same score.
        replication::zadd(self.ctx, self.name, score as i64, member);
        self.notify(NotifyEvent::ZSET, c"zadd");
    }

    /// `ZREM key member`; true when the member was there. Only a real removal is an effect.
    pub fn zrem(&self, member: Str) -> bool {
        self.remove_member(member, c"zrem", true)
    }

    /// The member `ZPOPMIN` would pop (the lowest score, then the lowest bytes), left in place so
    /// the caller can check everything before it writes.
    pub fn zfirst(&self) -> Option<Owned<'c>> {
        if self.kind() != KeyType::ZSet {
            return None;
        }
        let (min, max) = (f64::NEG_INFINITY, f64::INFINITY);
        let found =
            unsafe { raw::RedisModule_ZsetFirstInScoreRange.unwrap()(self.inner, min, max, 0, 0) };
        if found != raw::REDISMODULE_OK as c_int {
            return None;
        }
        let mut score = 0.0;
        let element =
            unsafe { raw::RedisModule_ZsetRangeCurrentElement.unwrap()(self.inner, &mut score) };
        unsafe { raw::RedisModule_ZsetRangeStop.unwrap()(self.inner) };
        Owned::take(self.ctx, element)
    }

    /// Pops `member` as `ZPOPMIN` would (its event), replicated as the `ZREM` of that member so a
    /// replica never has to agree on which one.
    pub fn zpop(&self, member: Str) -> bool {
        self.remove_member(member, c"zpopmin", true)
    }

    /// A sweep's move out: `ZREM key member` with its event, the effect left to
    /// [`Key::replicate_zrem_batch`].
    pub fn zrem_batched(&self, member: Str) -> bool {
        self.remove_member(member, c"zrem", false)
    }

    /// A sweep's move in: `ZADD key 0 member` with its event, the effect left to
    /// [`Key::replicate_zadd_zero_batch`].
    pub fn zadd_zero_batched(&self, member: Str) {
        let mut flags: c_int = 0;
        unsafe {
            raw::RedisModule_ZsetAdd.unwrap()(self.inner, 0.0, member.raw(), &mut flags);
        }
        self.now_holds(KeyType::ZSet);
        self.notify(NotifyEvent::ZSET, c"zadd");
    }

    /// The effect of a batch of [`Key::zrem_batched`]: one `ZREM key m…`.
    pub fn replicate_zrem_batch(&self, members: &[Owned]) {
        self.replicate_members(Command::Zrem, None, members);
    }

    /// The effect of a batch of [`Key::zadd_zero_batched`]: one `ZADD key 0 m 0 m…`.
    pub fn replicate_zadd_zero_batch(&self, members: &[Owned]) {
        self.replicate_members(Command::Zadd, Some(shared().zero), members);
    }

    /// `command key [score] m [score] m…` as one effect: for the replicas and the AOF one command
    /// says what one per member would (the dataset is the same).
    fn replicate_members(&self, command: Command, score: Option<Str>, members: &[Owned]) {
        replication::members(self.ctx, command, self.name, score, members);
    }

    fn remove_member(&self, member: Str, event: &CStr, replicate: bool) -> bool {
        if self.kind() != KeyType::ZSet {
            return false;
        }
        let mut deleted: c_int = 0;
        unsafe {
            raw::RedisModule_ZsetRem.unwrap()(self.inner, member.raw(), &mut deleted);
        }
        if deleted == 0 {
            return false;
        }
        // The API deletes a sorted set it emptied; the command would also have said `del`.
        self.ask_kind();
        if replicate {
            self.effect(Command::Zrem, &[member], NotifyEvent::ZSET, event);
        } else {
            self.notify(NotifyEvent::ZSET, event);
        }
        if !self.exists() {
            self.notify(NotifyEvent::GENERIC, c"del");
        }
        true
    }

    /// `ZRANGEBYSCORE key min max LIMIT 0 limit`, both ends inclusive; a negative limit means
    /// no limit, as it does for the command. The members are the server's strings.
    pub fn zrange_by_score(&self, min: f64, max: f64, limit: i64) -> Vec<Owned<'c>> {
        let mut members = Vec::new();
        if limit == 0 || self.kind() != KeyType::ZSet {
            return members;
        }
        let found =
            unsafe { raw::RedisModule_ZsetFirstInScoreRange.unwrap()(self.inner, min, max, 0, 0) };
        if found != raw::REDISMODULE_OK as c_int {
            return members;
        }
        while unsafe { raw::RedisModule_ZsetRangeEndReached.unwrap()(self.inner) } == 0 {
            if limit > 0 && members.len() as i64 >= limit {
                break;
            }
            let mut score = 0.0;
            let element = unsafe {
                raw::RedisModule_ZsetRangeCurrentElement.unwrap()(self.inner, &mut score)
            };
            let Some(member) = Owned::take(self.ctx, element) else {
                break;
            };
            members.push(member);
            if unsafe { raw::RedisModule_ZsetRangeNext.unwrap()(self.inner) } == 0 {
                break;
            }
        }
        unsafe { raw::RedisModule_ZsetRangeStop.unwrap()(self.inner) };
        members
    }

    /// `DEL key`.
    pub fn delete(&self) {
        if !self.exists() {
            return;
        }
        unsafe { raw::RedisModule_DeleteKey.unwrap()(self.inner) };
        self.now_holds(KeyType::Empty);
        self.effect(Command::Del, &[], NotifyEvent::GENERIC, c"del");
    }

    /// Replicates `command <key> <args…>` (`replication.rs` decides how) and fires its event. The
    /// strings are the ones the write used, passed as they are: the server takes its own
    /// references, so nothing is copied again.
    fn effect(&self, command: Command, args: &[Str], class: NotifyEvent, event: &CStr) {
        replication::effect(self.ctx, command, self.name, args);
        self.notify(class, event);
    }

    fn notify(&self, class: NotifyEvent, event: &CStr) {
        unsafe {
            raw::RedisModule_NotifyKeyspaceEvent.unwrap()(
                self.ctx.get_raw(),
                class.bits(),
                event.as_ptr(),
                self.name.raw(),
            );
        }
    }
}

impl Drop for Key<'_> {
    fn drop(&mut self) {
        if !self.inner.is_null() {
            raw::close_key(self.inner);
        }
    }
}

/// A field's value as `HINCRBY` reads it: absent is 0, anything but an integer is refused.
pub fn integer_field(value: Option<&Owned>) -> Result<i64, ValkeyError> {
    match value {
        None => Ok(0),
        Some(value) => crate::wire::parse_integer(value.bytes())
            .ok_or(ValkeyError::Str("ERR hash value is not an integer")),
    }
}

/// `HINCRBY`'s `+ 1`, refused with the server's own message where it would overflow.
pub fn increment(current: i64) -> Result<i64, ValkeyError> {
    current.checked_add(1).ok_or(ValkeyError::Str(
        "ERR increment or decrement would overflow",
    ))
}

/// The server clock in milliseconds (`TIME` → `seconds * 1000 + floor(microseconds / 1000)`).
pub fn now_ms() -> i64 {
    unsafe { raw::RedisModule_Milliseconds.unwrap()() }
}
