-- The server's clock (one clock for every host), and the line without the tickets whose lease ran out.
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
for _, token in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do
  redis.call('ZREM', KEYS[1], token)
  redis.call('ZREM', KEYS[2], token)
end
