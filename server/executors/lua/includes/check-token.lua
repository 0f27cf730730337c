--- @include "quote"
-- The fencing token is the row's attempts count: a worker holding an older claim is stale.
local function refuse_stale(row, id, token)
  local attempts = redis.call("HGET", row, "attempts") or ""
  if attempts ~= token then
    return redis.error_reply("EMQSTALE expected token " .. quote(attempts) .. " for " .. quote(id) ..
      " but found " .. quote(token))
  end
end
