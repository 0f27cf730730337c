--[[
  Fails a claimed job: schedules it again after a delay, or buries it when out of attempts.

  Input:
    KEYS[1] active          emq:{q}:active
    KEYS[2] schedule        emq:{q}:schedule
    KEYS[3] dead            emq:{q}:dead
    KEYS[4] row             emq:{q}:job:<id>
    KEYS[5] metrics:failed  emq:{q}:metrics:failed

    ARGV[1] id
    ARGV[2] token         the attempts count the claim returned
    ARGV[3] delay_ms      wait before the next attempt
    ARGV[4] max_attempts
    ARGV[5] error         recorded as last_error

  Output:
    "scheduled"  it runs again after delay_ms
    "dead"       out of attempts, moved to dead and counted
    0            no such row
    EMQSTALE     the token is not the row's attempts
]]
--- @include "check-token"
--- @include "now-ms"

local active, schedule, dead, row, failed = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, token, delay_ms, max_attempts, error_text = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]

if redis.call("EXISTS", row) == 0 then return 0 end
local refusal = refuse_stale(row, id, token)
if refusal then return refusal end

redis.call("HSET", row, "last_error", error_text)
redis.call("ZREM", active, id)
if tonumber(redis.call("HGET", row, "attempts")) >= tonumber(max_attempts) then
  redis.call("HSET", row, "state", "dead")
  redis.call("ZADD", dead, 0, id)
  redis.call("HINCRBY", failed, "count", 1)
  return "dead"
end
redis.call("HSET", row, "state", "scheduled")
redis.call("ZADD", schedule, now_ms() + tonumber(delay_ms), id)
return "scheduled"
