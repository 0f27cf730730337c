--[[
  Enqueues a job into its group's lane, and puts the group on the ring when the group
  can be served: not already on it, not paused, and under its concurrency limit.

  Input:
    KEYS[1] row           emq:{q}:job:<id>
    KEYS[2] lane pending  emq:{q}:g:<group>:pending
    KEYS[3] ring          emq:{q}:ring
    KEYS[4] paused        emq:{q}:paused
    KEYS[5] glimit        emq:{q}:glimit
    KEYS[6] gactive       emq:{q}:gactive

    ARGV[1] id        branded id of kind JOB
    ARGV[2] payload
    ARGV[3] group     branded id of the group

  Output: add_job's reply (includes/add-job.lua): 1 enqueued, 0 duplicate, or EMQKIND
]]
--- @include "add-job"

local row, lane, ring, paused, glimit, gactive = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local id, payload, group = ARGV[1], ARGV[2], ARGV[3]

-- A refusal or a duplicate ends here; only a new job can bring its group onto the ring.
local added = add_job(row, lane, 0, id, payload, "pending", "group", group)
if added ~= 1 then return added end

local on_ring = redis.call("LPOS", ring, group)
local is_paused = redis.call("SISMEMBER", paused, group) == 1
local limit = tonumber(redis.call("HGET", glimit, group))
local running = tonumber(redis.call("HGET", gactive, group) or "0")
if not on_ring and not is_paused and (limit == nil or running < limit) then
  redis.call("RPUSH", ring, group)
end
return 1
