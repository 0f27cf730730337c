--[[
  Takes `count` free leases at once, or none, and flushes their databases (a lease that expired with
  its process was never flushed). A script may SELECT; that changes only the script's own database.
  A script's writes are not undone when it fails, so a database the server refuses to enter gives back
  the leases just set, then fails.

  Input:
    KEYS[1] … KEYS[n]  lease keys  sandbox:lease:<db>, one per database tried, in the order tried

    ARGV[1]            token       the taker's token (<host>:<pid>:<random>:<run>)
    ARGV[2]            ttl         the lease's life in ms
    ARGV[3]            count       how many leases the run needs
    ARGV[3 + i]        database    the database of KEYS[i]

  Output:
    the indexes (into KEYS) of the `count` leases taken, or an empty array when fewer were free
    an error reply, with every lease of this call given back, when a database cannot be entered
]]
local got = {}
local function enter(db)
  local answer = redis.pcall('SELECT', db)
  if type(answer) == 'table' and answer.err then return answer end
  answer = redis.pcall('FLUSHDB')
  if type(answer) == 'table' and answer.err then return answer end
end
for i = 1, #KEYS do
  if redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2], 'NX') then
    got[#got + 1] = i
    if #got == tonumber(ARGV[3]) then
      for _, j in ipairs(got) do
        local failed = enter(ARGV[3 + j])
        if failed then
          redis.call('SELECT', 0)
          for _, k in ipairs(got) do redis.call('DEL', KEYS[k]) end
          return redis.error_reply(failed.err)
        end
      end
      return got
    end
  end
end
for _, i in ipairs(got) do redis.call('DEL', KEYS[i]) end
return {}
