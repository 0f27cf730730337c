--[[
  Completes a claimed job: removes it from active, deletes its row and counts it.

  Input:
    KEYS[1] active             emq:{q}:active
    KEYS[2] row                emq:{q}:job:<id>
    KEYS[3] metrics:completed  emq:{q}:metrics:completed

    ARGV[1] id
    ARGV[2] token     the attempts count the claim returned

  Output:
    1  completed
    0  no such row
    EMQSTALE  the token is not the row's attempts
]]
--- @include "check-token"

local active, row, completed = KEYS[1], KEYS[2], KEYS[3]
local id, token = ARGV[1], ARGV[2]

if redis.call("EXISTS", row) == 0 then return 0 end
local refusal = refuse_stale(row, id, token)
if refusal then return refusal end

redis.call("ZREM", active, id)
redis.call("DEL", row)
redis.call("HINCRBY", completed, "count", 1)
return 1
