--[[
  A ticket's heartbeat and its question "am I first?": renews the ticket's lease and answers its place
  in the line and who is first. Tickets whose lease ran out leave the line first, so a dead process's
  ticket never keeps the line waiting past its lease.

  Input:
    KEYS[1] line   {sandbox}:line:<name>        sorted set: token → its place (round, ticket number)
    KEYS[2] alive  {sandbox}:line:<name>:alive  sorted set: token → when its lease ends (server ms)
    KEYS[3] meta   {sandbox}:line:<name>:meta   hash: seq, avg, r:<reader>

    ARGV[1] token  the ticket's token
    ARGV[2] lease  ms the ticket lives from now

  Output:
    { place, first }  place 0 is the turn itself; `first` is the token whose turn it is
    { -1 }            the ticket is gone (its lease ran out, or it was freed as a dead holder's)
]]
--- @include "line-prune"
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return { -1 } end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[3], 4 * tonumber(ARGV[2]))
return { redis.call('ZRANK', KEYS[1], ARGV[1]), redis.call('ZRANGE', KEYS[1], 0, 0)[1] }
