--[[
  Schedules a job to run later: writes its row and puts its id on schedule at run-at.

  Input:
    KEYS[1] row       emq:{q}:job:<id>
    KEYS[2] schedule  emq:{q}:schedule

    ARGV[1] id        branded id of kind JOB
    ARGV[2] payload
    ARGV[3] run_at    ms since the Unix epoch

  Output:
    1  scheduled
    0  duplicate: the row exists, nothing written
    EMQKIND  the id is not of kind JOB
]]
--- @include "check-kind"

local row, schedule = KEYS[1], KEYS[2]
local id, payload, run_at = ARGV[1], ARGV[2], ARGV[3]

local refusal = refuse_kind(id)
if refusal then return refusal end
if redis.call("EXISTS", row) == 1 then return 0 end

redis.call("HSET", row, "state", "scheduled", "attempts", 0, "payload", payload)
redis.call("ZADD", schedule, run_at, id)
return 1
