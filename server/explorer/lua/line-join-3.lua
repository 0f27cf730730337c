--[[
  Takes a ticket in a turn's line: the next number, at the back, in arrival order whatever process or
  host asks. Tickets whose lease ran out (their process died or froze) leave the line first. A line
  whose work ahead, at the pace of its last turns, is already longer than the taker may wait refuses it
  at once instead: a ticket that would be served after its run's deadline is no use to anyone.

  Input:
    KEYS[1] line   {sandbox}:line:<name>        sorted set: token → ticket number
    KEYS[2] alive  {sandbox}:line:<name>:alive  sorted set: token → when its lease ends (server ms)
    KEYS[3] meta   {sandbox}:line:<name>:meta   hash: seq (the last number given), avg (ms a turn takes)

    ARGV[1] token    the taker's token (<host>:<pid>:<random>)
    ARGV[2] lease    ms the ticket lives unless renewed
    ARGV[3] bound    ms the taker may wait
    ARGV[4] guess    ms a turn takes, until a turn of this line has been timed

  Output:
    { ahead, ticket }           the ticket taken, with `ahead` tickets before it
    { -1, ahead, expected_ms }  refused: `ahead` tickets would take about expected_ms, past the bound
]]
--- @include "line-prune"
local ahead = redis.call('ZCARD', KEYS[1])
local avg = tonumber(redis.call('HGET', KEYS[3], 'avg') or ARGV[4])
local expected = ahead * avg
if ahead > 0 and expected > tonumber(ARGV[3]) then return { -1, ahead, expected } end
local ticket = redis.call('HINCRBY', KEYS[3], 'seq', 1)
redis.call('ZADD', KEYS[1], ticket, ARGV[1])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
-- Nothing of a line outlives its tickets for long, even when every one of them died.
redis.call('PEXPIRE', KEYS[3], 4 * tonumber(ARGV[2]))
return { ahead, ticket }
