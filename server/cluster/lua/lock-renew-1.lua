--[[
  Renews a run lock: extends the key's lifetime only while it still holds the caller's token.

  Input:
    KEYS[1] lock   {sandbox}:lock:<name>

    ARGV[1] token  the holder's token (<host>:<pid>:<random>)
    ARGV[2] ttl_ms the key's new lifetime, in milliseconds

  Output:
    1  the key held the token and lives ttl_ms from now
    0  the key is gone or holds another token: the turn may no longer be the caller's alone
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0
