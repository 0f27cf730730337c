--[[
  Flushes each database and gives its lease back, only while the lease is still the caller's (it may
  have expired and been taken since: that run's keyspace is not the caller's to flush). A lease that
  expired while the give was refused (a busy server) and that nobody took since is flushed all the
  same: no one holds that database, and what the run wrote would otherwise stay until the next take.

  Input:
    KEYS[1] … KEYS[n]  lease keys  sandbox:lease:<db>

    ARGV[1]            token       the holder's token
    ARGV[1 + i]        database    the database of KEYS[i]

  Output:
    the number of leases given back
]]
local given = 0
for i = 1, #KEYS do
  local holder = redis.call('GET', KEYS[i])
  if holder == ARGV[1] or not holder then
    -- A database the server refuses to enter holds nothing to flush: its lease goes back all the same.
    local entered = redis.pcall('SELECT', ARGV[1 + i])
    if not (type(entered) == 'table' and entered.err) then redis.call('FLUSHDB') end
    redis.call('SELECT', 0)
    if holder then given = given + redis.call('DEL', KEYS[i]) end
  end
end
return given
