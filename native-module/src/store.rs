//! The module API's own key calls, wrapped once: open, type, hash get/set, sorted set
//! add/remove/range, delete.
//!
//! The low-level API neither replicates nor notifies by itself, so every write here does three
//! things in one place: apply it, replicate it as the plain command a script would have run
//! (effects replication: replicas and the AOF never need this module), and fire the keyspace
//! event that command fires. Reads never write.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::ptr;

use valkey_module::{raw, Context, KeyType, NotifyEvent, ValkeyError, ValkeyString};

/// The most arguments an effect carries after the key: `HSET key` with three fields and values.
const MAX_EFFECT_ARGS: usize = 7;

/// An open key; closed when dropped.
pub struct Key<'c> {
    ctx: &'c Context,
    name: ValkeyString,
    inner: *mut raw::RedisModuleKey,
}

impl<'c> Key<'c> {
    /// Opens a key for reading and writing; a missing key opens as empty.
    pub fn open(ctx: &'c Context, name: &[u8]) -> Self {
        Self::open_mode(ctx, name, raw::KeyMode::READ | raw::KeyMode::WRITE)
    }

    /// Opens a key for reading only; a missing key opens as empty.
    pub fn open_read(ctx: &'c Context, name: &[u8]) -> Self {
        Self::open_mode(ctx, name, raw::KeyMode::READ)
    }

    fn open_mode(ctx: &'c Context, name: &[u8], mode: raw::KeyMode) -> Self {
        // create_from_slice, not create: names may hold NUL bytes.
        let name = ValkeyString::create_from_slice(ctx.get_raw(), name);
        let inner = raw::open_key(ctx.get_raw(), name.inner, mode);
        Key { ctx, name, inner }
    }

    pub fn name(&self) -> &[u8] {
        self.name.as_slice()
    }

    pub fn kind(&self) -> KeyType {
        if self.inner.is_null() {
            return KeyType::Empty;
        }
        unsafe { raw::RedisModule_KeyType.unwrap()(self.inner) }.into()
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

    /// The bytes of a string key, borrowed while the key is open; `None` when the key is missing
    /// or not a string.
    pub fn read_string(&self) -> Option<&[u8]> {
        if self.kind() != KeyType::String {
            return None;
        }
        let mut len = 0;
        let dma = raw::string_dma(self.inner, &mut len, raw::KeyMode::READ);
        if dma.is_null() {
            return None;
        }
        Some(unsafe { std::slice::from_raw_parts(dma.cast::<u8>(), len) })
    }

    /// `HGET key field`; `None` for a missing key or field.
    pub fn hget(&self, field: &CStr) -> Option<Vec<u8>> {
        if !self.exists() {
            return None;
        }
        let mut value: *mut raw::RedisModuleString = ptr::null_mut();
        let status = unsafe {
            raw::RedisModule_HashGet.unwrap()(
                self.inner,
                raw::REDISMODULE_HASH_CFIELDS as c_int,
                field.as_ptr(),
                &mut value as *mut *mut raw::RedisModuleString,
                ptr::null::<c_char>(),
            )
        };
        if status != raw::REDISMODULE_OK as c_int || value.is_null() {
            return None;
        }
        let bytes = ValkeyString::string_as_slice(value).to_vec();
        unsafe { raw::RedisModule_FreeString.unwrap()(self.ctx.get_raw(), value) };
        Some(bytes)
    }

    /// `HSET key field value [field value …]`, fields in the given order (the order fixes the
    /// layout of a new hash, so it is the script's order).
    pub fn hset(&self, fields: &[(&CStr, &[u8])]) {
        let mut strings: Vec<ValkeyString> = Vec::with_capacity(2 * fields.len());
        for &(field, value) in fields {
            strings.push(self.string(field.to_bytes()));
            strings.push(self.set_field(field, value));
        }
        self.effect(c"HSET", &strings, NotifyEvent::HASH, c"hset");
    }

    /// One field through the API, without its effect (the caller replicates the whole command);
    /// returns the value's string, which the effect reuses.
    fn set_field(&self, field: &CStr, value: &[u8]) -> ValkeyString {
        let value_string = self.string(value);
        unsafe {
            raw::RedisModule_HashSet.unwrap()(
                self.inner,
                raw::REDISMODULE_HASH_CFIELDS as c_int,
                field.as_ptr(),
                value_string.inner,
                ptr::null::<c_char>(),
            );
        }
        value_string
    }

    /// A hash field as `HINCRBY` reads it: absent is 0, anything but an integer is refused.
    /// The transitions call it before their first write, so a refusal writes nothing.
    pub fn hget_integer(&self, field: &CStr) -> Result<i64, ValkeyError> {
        match self.hget(field) {
            None => Ok(0),
            Some(bytes) => crate::wire::parse_integer(&bytes)
                .ok_or(ValkeyError::Str("ERR hash value is not an integer")),
        }
    }

    /// `HINCRBY key field by`, returning the new value; refuses a value that is not an integer
    /// before writing anything, with the server's own message.
    pub fn hincrby(&self, field: &CStr, by: i64) -> Result<i64, ValkeyError> {
        let next = self
            .hget_integer(field)?
            .checked_add(by)
            .ok_or(ValkeyError::Str(
                "ERR increment or decrement would overflow",
            ))?;
        self.set_field(field, next.to_string().as_bytes());
        let args = [
            self.string(field.to_bytes()),
            self.string(by.to_string().as_bytes()),
        ];
        self.effect(c"HINCRBY", &args, NotifyEvent::HASH, c"hincrby");
        Ok(next)
    }

    /// `ZADD key score member`.
    pub fn zadd(&self, score: f64, member: &[u8]) {
        let member_string = self.string(member);
        let mut flags: c_int = 0;
        unsafe {
            raw::RedisModule_ZsetAdd.unwrap()(self.inner, score, member_string.inner, &mut flags);
        }
        // Rust prints an f64 without an exponent, which ZADD parses back to the same double.
        let score = self.string(score.to_string().as_bytes());
        self.effect(c"ZADD", &[score, member_string], NotifyEvent::ZSET, c"zadd");
    }

    /// `ZREM key member`; true when the member was there. Only a real removal is an effect.
    pub fn zrem(&self, member: &[u8]) -> bool {
        self.remove_member(member, c"zrem")
    }

    /// The member `ZPOPMIN` would pop (the lowest score, then the lowest bytes), left in place so
    /// the caller can check everything before it writes.
    pub fn zfirst(&self) -> Option<Vec<u8>> {
        self.zrange_by_score(f64::NEG_INFINITY, f64::INFINITY, 1)
            .pop()
    }

    /// Pops `member` as `ZPOPMIN` would (its event), replicated as the `ZREM` of that member so a
    /// replica never has to agree on which one.
    pub fn zpop(&self, member: &[u8]) -> bool {
        self.remove_member(member, c"zpopmin")
    }

    fn remove_member(&self, member: &[u8], event: &CStr) -> bool {
        if self.kind() != KeyType::ZSet {
            return false;
        }
        let member_string = self.string(member);
        let mut deleted: c_int = 0;
        unsafe {
            raw::RedisModule_ZsetRem.unwrap()(self.inner, member_string.inner, &mut deleted);
        }
        if deleted == 0 {
            return false;
        }
        self.effect(c"ZREM", &[member_string], NotifyEvent::ZSET, event);
        // The API deletes a sorted set it emptied; the command would also have said `del`.
        if !self.exists() {
            self.notify(NotifyEvent::GENERIC, c"del");
        }
        true
    }

    /// `ZRANGEBYSCORE key min max LIMIT 0 limit`, both ends inclusive; a negative limit means
    /// no limit, as it does for the command.
    pub fn zrange_by_score(&self, min: f64, max: f64, limit: i64) -> Vec<Vec<u8>> {
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
            if element.is_null() {
                break;
            }
            members.push(ValkeyString::string_as_slice(element).to_vec());
            unsafe { raw::RedisModule_FreeString.unwrap()(self.ctx.get_raw(), element) };
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
        self.effect(c"DEL", &[], NotifyEvent::GENERIC, c"del");
    }

    /// A string for the API or an effect; names may hold NUL bytes, so never a C string.
    fn string(&self, bytes: &[u8]) -> ValkeyString {
        ValkeyString::create_from_slice(self.ctx.get_raw(), bytes)
    }

    /// Replicates `command <key> <args…>` and fires its event. The strings are the ones the write
    /// already made (the key's name, the member, the value), passed as they are: the server takes
    /// its own references, so nothing is copied again.
    fn effect(&self, command: &CStr, args: &[ValkeyString], class: NotifyEvent, event: &CStr) {
        let mut argv: [*mut raw::RedisModuleString; MAX_EFFECT_ARGS] =
            [ptr::null_mut(); MAX_EFFECT_ARGS];
        assert!(
            args.len() < MAX_EFFECT_ARGS,
            "an effect has at most 6 arguments"
        );
        argv[0] = self.name.inner;
        for (slot, arg) in argv[1..].iter_mut().zip(args) {
            *slot = arg.inner;
        }
        unsafe {
            raw::RedisModule_Replicate.unwrap()(
                self.ctx.get_raw(),
                command.as_ptr(),
                c"v".as_ptr(),
                argv.as_ptr(),
                1 + args.len(),
            );
        }
        self.notify(class, event);
    }

    fn notify(&self, class: NotifyEvent, event: &CStr) {
        unsafe {
            raw::RedisModule_NotifyKeyspaceEvent.unwrap()(
                self.ctx.get_raw(),
                class.bits(),
                event.as_ptr(),
                self.name.inner,
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

/// The server clock in milliseconds (`TIME` → `seconds * 1000 + floor(microseconds / 1000)`).
pub fn now_ms() -> i64 {
    unsafe { raw::RedisModule_Milliseconds.unwrap()() }
}
