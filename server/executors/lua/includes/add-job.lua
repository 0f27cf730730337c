--- @include "check-kind"
-- The admission verbs' write, as the native module's add_job: an id not of kind JOB is refused, an
-- existing row is a duplicate (0, nothing written); else the row gets state, attempts 0 and payload
-- (then any field-value pairs in `...`), in this order, and the id joins `set` at `score` (1).
local function add_job(row, set, score, id, payload, state, ...)
  local refusal = refuse_kind(id)
  if refusal then return refusal end
  if redis.call("EXISTS", row) == 1 then return 0 end
  redis.call("HSET", row, "state", state, "attempts", 0, "payload", payload, ...)
  redis.call("ZADD", set, score, id)
  return 1
end
