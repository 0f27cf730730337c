//! What an effect is: the plain commands a transition's writes replicate as, and the fixed script
//! body that applies a list of them (`replicate script`). Both `shared.rs` (which makes their strings
//! at load) and `replication.rs` (which sends them) read it.

use std::ffi::CStr;

/// The fixed body a replica runs: for op k, `redis.call(ARGV[i], KEYS[k], <the next n ARGV>)`, where
/// `ARGV[i+1]` is n. One key per op, so every key the ops write is declared (a cluster routes and
/// checks them as one slot: they all carry the queue's hashtag).
pub const APPLY_EFFECTS: &str = "local i,k=1,1 while ARGV[i] do local n=tonumber(ARGV[i+1]) \
redis.call(ARGV[i],KEYS[k],unpack(ARGV,i+2,i+1+n)) i,k=i+2+n,k+1 end";

/// The commands an effect can be, each named as a C string (for `RedisModule_Replicate`) and, made
/// at load in the same order (`shared.rs`), as a server string (an `ARGV` of the script).
#[derive(Clone, Copy)]
pub enum Command {
    Hset,
    Hincrby,
    Zadd,
    Zrem,
    Del,
}

impl Command {
    pub const ALL: [Command; 5] = [
        Command::Hset,
        Command::Hincrby,
        Command::Zadd,
        Command::Zrem,
        Command::Del,
    ];

    pub fn name(self) -> &'static CStr {
        match self {
            Command::Hset => c"HSET",
            Command::Hincrby => c"HINCRBY",
            Command::Zadd => c"ZADD",
            Command::Zrem => c"ZREM",
            Command::Del => c"DEL",
        }
    }
}
