//! The server's strings as the module holds them: [`Str`], borrowed (a command's argument, a string
//! made at load), and [`Owned`], made by a call or handed back by the server and freed when dropped.
//! Keys (`store.rs`) and the strings made at load (`shared.rs`) both build on these.

use std::marker::PhantomData;
use std::os::raw::c_char;
use std::ptr::NonNull;

use valkey_module::{raw, Context, ValkeyString};

pub(crate) type RawString = *mut raw::RedisModuleString;

/// A server string borrowed for `'a`: an argument of the command, a string made at load, or an
/// [`Owned`] one.
///
/// Transparent over the server's pointer, so the argument vector a command receives reads in place
/// as `&[Str]`.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Str<'a> {
    inner: NonNull<raw::RedisModuleString>,
    _borrow: PhantomData<&'a ()>,
}

impl<'a> Str<'a> {
    /// The argument vector the server passed to a command, borrowed where it lies.
    ///
    /// # Safety
    /// `argv` must be the command's `argc` non-null strings, alive for `'a` (the call).
    pub unsafe fn argv(argv: *mut RawString, argc: usize) -> &'a [Str<'a>] {
        std::slice::from_raw_parts(argv.cast::<Str<'a>>(), argc)
    }

    pub fn bytes(self) -> &'a [u8] {
        ValkeyString::string_as_slice(self.inner.as_ptr())
    }

    pub(crate) fn raw(self) -> RawString {
        self.inner.as_ptr()
    }
}

/// Strings as the server's pointers, in place (`Str` is transparent over one).
pub(crate) fn raws<'s>(strings: &'s [Str]) -> &'s [RawString] {
    unsafe { std::slice::from_raw_parts(strings.as_ptr().cast::<RawString>(), strings.len()) }
}

impl Str<'static> {
    /// A string that is never freed (made once at load).
    pub(crate) fn leaked(inner: NonNull<raw::RedisModuleString>) -> Self {
        Str {
            inner,
            _borrow: PhantomData,
        }
    }
}

/// A string this call made or the server handed back; freed when dropped.
pub struct Owned<'c> {
    ctx: &'c Context,
    inner: NonNull<raw::RedisModuleString>,
}

impl<'c> Owned<'c> {
    pub(crate) fn take(ctx: &'c Context, inner: RawString) -> Option<Self> {
        NonNull::new(inner).map(|inner| Owned { ctx, inner })
    }

    pub fn new(ctx: &'c Context, bytes: &[u8]) -> Self {
        let inner = unsafe {
            raw::RedisModule_CreateString.unwrap()(
                ctx.get_raw(),
                bytes.as_ptr().cast::<c_char>(),
                bytes.len(),
            )
        };
        Self::take(ctx, inner).expect("the server made the string")
    }

    /// `a .. b` as one string, built on the stack when it is short (as a key almost always is).
    pub fn concat(ctx: &'c Context, a: &[u8], b: &[u8]) -> Self {
        let mut buffer = [0u8; 256];
        let len = a.len() + b.len();
        if len <= buffer.len() {
            buffer[..a.len()].copy_from_slice(a);
            buffer[a.len()..len].copy_from_slice(b);
            Self::new(ctx, &buffer[..len])
        } else {
            Self::new(ctx, &[a, b].concat())
        }
    }

    /// An integer in base 10, as the commands print it.
    pub fn integer(ctx: &'c Context, value: i64) -> Self {
        let mut buffer = [0u8; 20];
        Self::new(ctx, format_integer(value, &mut buffer))
    }

    pub fn str(&self) -> Str<'_> {
        Str {
            inner: self.inner,
            _borrow: PhantomData,
        }
    }

    pub fn bytes(&self) -> &[u8] {
        self.str().bytes()
    }
}

impl Drop for Owned<'_> {
    fn drop(&mut self) {
        unsafe { raw::RedisModule_FreeString.unwrap()(self.ctx.get_raw(), self.inner.as_ptr()) };
    }
}

/// `value` in base 10 into `buffer` (20 bytes hold `i64::MIN`), without allocating.
pub fn format_integer(value: i64, buffer: &mut [u8; 20]) -> &[u8] {
    let mut rest = value.unsigned_abs();
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if value < 0 {
        at -= 1;
        buffer[at] = b'-';
    }
    &buffer[at..]
}

#[cfg(test)]
mod tests {
    use super::format_integer;

    #[test]
    fn integers_print_as_the_commands_print_them() {
        for value in [0, 1, -1, 9, 10, 1_700_000_000_000, i64::MAX, i64::MIN] {
            let mut buffer = [0u8; 20];
            assert_eq!(
                format_integer(value, &mut buffer),
                value.to_string().as_bytes()
            );
        }
    }
}
