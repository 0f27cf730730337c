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
