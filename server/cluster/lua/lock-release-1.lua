--[[
  Lets go of a run lock: deletes the key only while it still holds the caller's token (the lock may
  have expired and been taken by another since). Also frees a dead holder's key, by that holder's token.

  Input:
    KEYS[1] lock   {sandbox}:lock:<name>

    ARGV[1] token  the holder's token (<host>:<pid>:<random>)

  Output:
    1  the key held the token and was deleted
    0  the key is gone or holds another token; nothing changed
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0
