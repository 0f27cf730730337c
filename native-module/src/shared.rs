//! What every call would otherwise rebuild, made once when the module loads: the hash fields and
//! values the transitions write, `{emq}:version`, what replication sends, and whether the server
//! runs in cluster mode.
//!
//! The strings are the server's own (`RedisModuleString`), created without a context so they live
//! as long as the module; the API copies what it stores and takes its own reference for an effect,
//! so one string serves every call.

use std::cell::RefCell;
use std::ptr::{self, NonNull};
use std::sync::OnceLock;

use valkey_module::{raw, Context, ContextFlags};

use crate::effects::{Command, APPLY_EFFECTS};
use crate::keyspace;
use crate::strings::{RawString, Str};

/// Declares [`Shared`] with one string per name listed, holding the name's own bytes (`state` holds
/// `state`), so a name is written once and the field cannot hold another word; the strings that are
/// not their name follow in the struct by hand.
macro_rules! named_strings {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        /// The strings made at load, one per field or value name, and cluster mode.
        pub struct Shared {
            $($(#[$doc])* pub $name: Str<'static>,)*
            /// `0`: a new row's attempts and a pending score; `1`: an increment.
            pub zero: Str<'static>,
            pub one: Str<'static>,
            /// `{emq}:version`, read by the fence on every call.
            pub version_key: Str<'static>,
            /// The effects' command names, by [`Command`], and the counts `0`…`7`: what the
            /// script way of replication sends (`replication.rs`).
            pub commands: [Str<'static>; Command::ALL.len()],
            pub counts: [Str<'static>; 8],
            /// The body of the one `EVAL` a transition replicates as.
            pub apply_effects: Str<'static>,
            /// Cluster mode is fixed when the server starts, before modules load.
            pub cluster: bool,
            /// Every string above, by address, sorted (see [`Shared::made_at_load`]).
            made: Vec<usize>,
        }

        impl Shared {
            fn new(ctx: &Context, make: impl Fn(&[u8]) -> Str<'static>) -> Self {
                Shared {
                    $($name: make(stringify!($name).as_bytes()),)*
                    zero: make(b"0"),
                    one: make(b"1"),
                    version_key: make(&keyspace::version_key()),
                    commands: Command::ALL.map(|command| make(command.name().to_bytes())),
                    counts: std::array::from_fn(|count| make(count.to_string().as_bytes())),
                    apply_effects: make(APPLY_EFFECTS.as_bytes()),
                    cluster: ctx.get_flags().contains(ContextFlags::CLUSTER),
                    made: Vec::new(),
                }
            }
        }
    };
}

named_strings! {
    // Row fields.
    state, attempts, payload, last_error,
    /// `meta`'s pause flag.
    paused,
    /// The metrics hashes' counter.
    count,
    // States.
    pending, scheduled, active, dead,
}

impl Shared {
    /// Whether `string` is one of the strings made at load, which live as long as the module.
    pub fn made_at_load(&self, string: RawString) -> bool {
        self.made.binary_search(&(string as usize)).is_ok()
    }
}

// The strings are only touched by commands, which the server runs on its main thread.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

static SHARED: OnceLock<Shared> = OnceLock::new();

/// Makes the strings; called once from the module's `init`.
pub fn init(ctx: &Context) {
    let made = RefCell::new(Vec::new());
    let make = |bytes: &[u8]| {
        let inner = unsafe {
            raw::RedisModule_CreateString.unwrap()(
                ptr::null_mut(),
                bytes.as_ptr().cast(),
                bytes.len(),
            )
        };
        made.borrow_mut().push(inner as usize);
        Str::leaked(NonNull::new(inner).expect("the server made the string"))
    };
    SHARED.get_or_init(|| {
        let mut shared = Shared::new(ctx, make);
        shared.made = made.take();
        shared.made.sort_unstable();
        shared
    });
}

/// The strings made at load.
pub fn shared() -> &'static Shared {
    SHARED
        .get()
        .expect("trafikey's init made the shared strings")
}
