--[[
  Enqueues a job: writes its row and puts its id on pending.

  Input:
    KEYS[1] row       emq:{q}:job:<id>
    KEYS[2] pending   emq:{q}:pending

    ARGV[1] id        branded id of kind JOB
    ARGV[2] payload

  Output:
    1  enqueued
    0  duplicate: the row exists, nothing written
    EMQKIND  the id is not of kind JOB
]]
--- @include "check-kind"

local row, pending = KEYS[1], KEYS[2]
local id, payload = ARGV[1], ARGV[2]

local refusal = refuse_kind(id)
if refusal then return refusal end
if redis.call("EXISTS", row) == 1 then return 0 end

redis.call("HSET", row, "state", "pending", "attempts", 0, "payload", payload)
-- Score 0 for all: members sort by bytes, and branded ids sort in mint order.
redis.call("ZADD", pending, 0, id)
return 1
