--[[
  Promotes scheduled jobs that are due (run-at at or before server now) to pending.

  Input:
    KEYS[1] schedule  emq:{q}:schedule
    the other keys, the argument and the output: as includes/move-due.lua declares them
]]
--- @include "now-ms"
--- @include "move-due"

return move_due(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]))
