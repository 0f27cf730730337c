--[[
  Takes `count` free leases at once, or none, and flushes their databases (a lease that expired with
  its process was never flushed). A script may SELECT; that changes only the script's own database.
  A script's writes are not undone when it fails, so a database the server refuses to enter gives back
  the leases just set, then fails.

  Site processes share the leases in proportion to what each asks for (held and wanted), each one's
  ask kept in a hash, field by process, for `ask ttl` ms while it has runs in line. While another
  process's runs wait below its share, a process that holds its share already takes no more: the lease
  stays free, and the other is told on `channel` to look at once. Without this, a process passed each
  lease its runs gave back to its own next run, and another process's runs could wait out their turn.

  Input:
    KEYS[1] … KEYS[n]  lease keys  sandbox:lease:<db>, one per database tried, in the order tried
    KEYS[n + 1]        asks        sandbox:lease:asks, a hash: process → "<held> <wanted> <until ms>"

    ARGV[1]            token       the taker's token (<host>:<pid>:<random>:<run>)
    ARGV[2]            ttl         the lease's life in ms
    ARGV[3]            count       how many leases the run needs
    ARGV[4]            process     the taker's process (its pool: <host>:<pid>:<random>/<n>)
    ARGV[5]            held        how many leases the process's runs hold now
    ARGV[6]            wanted      how many its runs in line want now (0: none, and this run is not)
    ARGV[7]            ask ttl     how long the process's ask stands, in ms
    ARGV[8]            channel     where a lease left free for another process is announced
    ARGV[8 + i]        database    the database of KEYS[i]

  Output:
    the indexes (into KEYS) of the `count` leases taken, or an empty array when fewer were free or the
    process is at its share while another waits below its own
    an error reply, with every lease of this call given back, when a database cannot be entered
]]
local leases = #KEYS - 1
local asks = KEYS[#KEYS]
local count, process = tonumber(ARGV[3]), ARGV[4]
local held, wanted = tonumber(ARGV[5]), tonumber(ARGV[6])
-- Only a process with runs in line asks (an uncontended site leaves no key behind), and only one
-- holding leases already can be at its share.
if wanted > 0 or held > 0 then
  local clock = redis.call('TIME')
  local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
  if wanted > 0 then
    redis.call('HSET', asks, process, held .. ' ' .. wanted .. ' ' .. (now + tonumber(ARGV[7])))
    redis.call('PEXPIRE', asks, ARGV[7])
  end
  if held > 0 then
    local mine = held + math.max(wanted, count)
    local total, others = mine, {}
    local fields = redis.call('HGETALL', asks)
    for i = 1, #fields, 2 do
      local h, w, untilMs = string.match(fields[i + 1], '^(%d+) (%d+) (%d+)$')
      if not untilMs or tonumber(untilMs) < now then
        redis.call('HDEL', asks, fields[i])
      elseif fields[i] ~= process then
        total = total + tonumber(h) + tonumber(w)
        others[#others + 1] = { tonumber(h), tonumber(w) }
      end
    end
    local function share(demand) return math.ceil(leases * demand / total) end
    if held + count > share(mine) then
      for _, other in ipairs(others) do
        if other[2] > 0 and other[1] < share(other[1] + other[2]) then
          redis.call('PUBLISH', ARGV[8], process)
          return {}
        end
      end
    end
  end
end

local got = {}
local function enter(db)
  local answer = redis.pcall('SELECT', db)
  if type(answer) == 'table' and answer.err then return answer end
  answer = redis.pcall('FLUSHDB')
  if type(answer) == 'table' and answer.err then return answer end
end
for i = 1, leases do
  if redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2], 'NX') then
    got[#got + 1] = i
    if #got == count then
      for _, j in ipairs(got) do
        local failed = enter(ARGV[8 + j])
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
