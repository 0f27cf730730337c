--[[
  The whole of promote-3 and reap-3, which differ only in KEYS[1], the sorted set due ids leave:
    KEYS[2] pending   emq:{q}:pending
    KEYS[3] row base  emq:{q}:job:   (never a key itself: while the queue's slot migrates, the
                                     cluster answers TRYAGAIN until SETSLOT ... NODE)
    ARGV[1] batch     the most ids moved in one call
  Output: the number of ids moved.
]]
-- Moves up to `batch` ids whose score is at or below now from `from` back to pending.
local function move_due(from, pending, row_base, batch)
  local ids = redis.call("ZRANGEBYSCORE", from, "-inf", now_ms(), "LIMIT", 0, batch)
  for _, id in ipairs(ids) do
    redis.call("ZREM", from, id)
    redis.call("ZADD", pending, 0, id)
    redis.call("HSET", row_base .. id, "state", "pending")
  end
  return #ids
end
