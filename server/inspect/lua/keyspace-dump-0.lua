--[[
  The whole keyspace of the connection's database, read inside the server in one call: every key with
  its type and contents, as keyspace-dump.ts reads them over the wire (SCAN, then TYPE and one read per
  key), one round trip instead of two or three. Run as the explorer, each call is checked against its
  account as if sent by the connection. The first answer is how many commands the script ran: the
  server counts them on the caller (CLIENT INFO's tot-cmds), and the wire recorder adds them.

  Input:
    (no keys: SCAN walks the database)

    ARGV[1]  limit    the most keys to read; one more, and the dump is refused
    ARGV[2]  pattern  a SCAN MATCH pattern, or '' for every key

  Output:
    { calls, key, type, value, key, type, value, … } — a hash's value as field, value, …; a sorted
    set's as member, score, …; a list's in order; a set's members; a string's value. A type it does
    not read (a stream) is left out.
    { calls, 'error', message } when a command was refused or there were more than `limit` keys.
]]
local limit = tonumber(ARGV[1])
local out = { 0 }
local function run(...)
  out[1] = out[1] + 1
  local reply = redis.pcall(...)
  if type(reply) == 'table' and reply.err then error({ failed = reply.err }) end
  return reply
end
local READ = {
  hash = function(key) return run('HGETALL', key) end,
  zset = function(key) return run('ZRANGE', key, 0, -1, 'WITHSCORES') end,
  list = function(key) return run('LRANGE', key, 0, -1) end,
  set = function(key) return run('SMEMBERS', key) end,
  string = function(key) return run('GET', key) end,
}
local ok, failure = pcall(function()
  local cursor, count = '0', 0
  repeat
    local page
    if ARGV[2] == '' then
      page = run('SCAN', cursor, 'COUNT', 200)
    else
      page = run('SCAN', cursor, 'MATCH', ARGV[2], 'COUNT', 200)
    end
    cursor = page[1]
    count = count + #page[2]
    if count > limit then error({ failed = 'more than ' .. limit .. ' keys: not a sandbox keyspace' }) end
    for _, key in ipairs(page[2]) do
      local kind = run('TYPE', key).ok
      local read = READ[kind]
      if read then
        local value = read(key)
        -- Gone since the SCAN (GET answers nil): not in the dump.
        if value then
          out[#out + 1] = key
          out[#out + 1] = kind
          out[#out + 1] = value
        end
      end
    end
  until cursor == '0'
end)
if not ok then
  local message = type(failure) == 'table' and failure.failed or tostring(failure)
  return { out[1], 'error', message }
end
return out
