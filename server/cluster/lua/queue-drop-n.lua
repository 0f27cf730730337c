--[[
  Deletes a queue inside the server: the rows each of its sets names, a thousand per UNLINK, then the
  sets. The rows share the sets' hashtag, so they are in the declared slot. (Listing 20,000 keys to the
  site and sending them back cost it ~100 ms of CPU.)

  Input:
    KEYS[1] … KEYS[n]  the queue's fixed keys  emq:{<queue>}:<type>

    ARGV[1]            row base                emq:{<queue>}:job:

  Output:
    0
]]
local base = ARGV[1]
for _, key in ipairs(KEYS) do
  local kind = redis.call('TYPE', key).ok
  local ids = {}
  if kind == 'zset' then ids = redis.call('ZRANGE', key, 0, -1)
  elseif kind == 'list' then ids = redis.call('LRANGE', key, 0, -1)
  elseif kind == 'set' then ids = redis.call('SMEMBERS', key) end
  for i = 1, #ids, 1000 do
    local rows = {}
    for j = i, math.min(i + 999, #ids) do rows[#rows + 1] = base .. ids[j] end
    redis.call('UNLINK', unpack(rows))
  end
  redis.call('UNLINK', key)
end
return 0
