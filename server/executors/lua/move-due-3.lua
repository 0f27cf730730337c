--[[
  Moves due ids back to pending: the ids of KEYS[1] whose score is at or before server now, in score
  order, up to a batch. Two transitions run it, differing only in the set they pass as KEYS[1] (as
  the native module's one move_due serves EMQ.PROMOTE and EMQ.REAP):
    promote  schedule, scored by run-at: scheduled jobs that are due
    reap     active, scored by lease deadline: claims whose lease has passed

  Input:
    KEYS[1] due       emq:{q}:schedule (promote) or emq:{q}:active (reap)
    KEYS[2] pending   emq:{q}:pending
    KEYS[3] row base  emq:{q}:job:   (never a key itself: while the queue's slot migrates, the
                                     cluster answers TRYAGAIN until SETSLOT ... NODE)

    ARGV[1] batch     the most ids moved in one call

  Output:
    the number of ids moved
]]
--- @include "now-ms"

local due, pending, row_base = KEYS[1], KEYS[2], KEYS[3]
local batch = tonumber(ARGV[1])

local ids = redis.call("ZRANGEBYSCORE", due, "-inf", now_ms(), "LIMIT", 0, batch)
for _, id in ipairs(ids) do
  redis.call("ZREM", due, id)
  redis.call("ZADD", pending, 0, id)
  redis.call("HSET", row_base .. id, "state", "pending")
end
return #ids
