--[[
  Takes a ticket in a turn's line, by every process and host alike: the next number, served in the order
  drawn within a round, and rounds in order. A reader's ticket goes in the round the line is serving now,
  unless that reader already had a ticket in it: then in the round after its last one. So a reader who
  has not been served lately waits only for the tickets of the round under way, never behind a reader
  who keeps one in line all the time (who waits a round, like everyone else in it). Tickets whose lease
  ran out (their process died or froze) leave the line first. A line whose work ahead of the new ticket,
  at the pace of its last turns, is already longer than the taker may wait refuses it at once instead:
  a ticket that would be served after its run's deadline is no use to anyone.

  Input:
    KEYS[1] line   {sandbox}:line:<name>        sorted set: token → round × 2^26 + ticket number
    KEYS[2] alive  {sandbox}:line:<name>:alive  sorted set: token → when its lease ends (server ms)
    KEYS[3] meta   {sandbox}:line:<name>:meta   hash: seq (the last number given), avg (ms a turn
                                                takes), r:<reader> (the round of the reader's last ticket)

    ARGV[1] token    the taker's token (<host>:<pid>:<random>)
    ARGV[2] lease    ms the ticket lives unless renewed
    ARGV[3] bound    ms the taker may wait
    ARGV[4] guess    ms a turn takes, until a turn of this line has been timed
    ARGV[5] reader   the reader's address, or '' (a ticket of no reader's: in the round under way)

  Output:
    { ahead, ticket }           the ticket taken, with `ahead` tickets before it
    { -1, ahead, expected_ms }  refused: `ahead` tickets would take about expected_ms, past the bound
]]
--- @include "line-prune"
local SPAN = 67108864 -- 2^26 tickets a round: far more than a busy spell draws (numbers restart when empty)
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
local round = head and math.floor(tonumber(head) / SPAN) or 0
local field = 'r:' .. ARGV[5]
if ARGV[5] ~= '' then
  local last = tonumber(redis.call('HGET', KEYS[3], field) or -1)
  if last + 1 > round then round = last + 1 end
end
local ticket = redis.call('HINCRBY', KEYS[3], 'seq', 1)
local score = round * SPAN + ticket
local ahead = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. score)
local avg = tonumber(redis.call('HGET', KEYS[3], 'avg') or ARGV[4])
local expected = ahead * avg
if ahead > 0 and expected > tonumber(ARGV[3]) then return { -1, ahead, expected } end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], field, round) end
redis.call('ZADD', KEYS[1], score, ARGV[1])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
-- Nothing of a line outlives its tickets for long, even when every one of them died.
redis.call('PEXPIRE', KEYS[3], 4 * tonumber(ARGV[2]))
return { ahead, ticket }
