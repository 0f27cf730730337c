--[[
  Claims the oldest pending job (@claim2): the row is derived from the declared base KEYS[3],
  so it shares the queue's hashtag and the script stays single-slot on a cluster.

  Input:
    KEYS[1] pending   emq:{q}:pending
    KEYS[2] active    emq:{q}:active
    KEYS[3] row base  emq:{q}:job:   (never a key itself: while the queue's slot migrates, the
                                     cluster answers TRYAGAIN until SETSLOT ... NODE)

    ARGV[1] lease_ms  how long the claim holds

  Output:
    nil                          nothing pending, or the queue is paused
    [id, payload, attempts]      attempts is the fencing token for complete and retry
]]
--- @include "now-ms"

local pending, active, row_base = KEYS[1], KEYS[2], KEYS[3]
local lease_ms = tonumber(ARGV[1])

-- meta sits on the same base: "emq:{q}:job:" less "job:" is "emq:{q}:".
local meta = string.sub(row_base, 1, -5) .. "meta"
if redis.call("HGET", meta, "paused") == "1" then return false end

local popped = redis.call("ZPOPMIN", pending)
if #popped == 0 then return false end

local id = popped[1]
local row = row_base .. id
local attempts = redis.call("HINCRBY", row, "attempts", 1)
redis.call("HSET", row, "state", "active")
redis.call("ZADD", active, now_ms() + lease_ms, id)
return { id, redis.call("HGET", row, "payload") or "", attempts }
