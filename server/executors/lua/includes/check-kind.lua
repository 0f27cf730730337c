--- @include "quote"
-- Only job ids enter a queue: the host checks the shape, the transition checks the kind.
local function refuse_kind(id)
  if string.sub(id, 1, 3) ~= "JOB" then
    return redis.error_reply("EMQKIND expected an id of kind 'JOB' but found " .. quote(id))
  end
end
