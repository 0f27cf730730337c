--[[
  Leaves a turn's line: the ticket `token` is taken out (whether it had its turn or gave up waiting),
  and a turn that was had is timed into the line's pace (a moving average), which the next takers'
  bound is reckoned by. An empty line leaves no key behind.

  Input:
    KEYS[1] line   {sandbox}:line:<name>        sorted set: token → its place (round, ticket number)
    KEYS[2] alive  {sandbox}:line:<name>:alive  sorted set: token → when its lease ends (server ms)
    KEYS[3] meta   {sandbox}:line:<name>:meta   hash: seq, avg, r:<reader>

    ARGV[1] token    the ticket's token
    ARGV[2] turn_ms  how long its turn took; 0 when it never had one

  Output:
    1  the ticket was in the line and left it
    0  it was gone already; nothing changed but the pace
]]
local left = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
local took = tonumber(ARGV[2])
if left == 1 and took > 0 then
  local avg = tonumber(redis.call('HGET', KEYS[3], 'avg') or took)
  redis.call('HSET', KEYS[3], 'avg', math.floor((3 * avg + took) / 4))
end
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('DEL', KEYS[2], KEYS[3]) end
return left
