--[[
  Reaps expired claims: ids whose lease deadline is at or before server now go back to pending.

  Input:
    KEYS[1] active    emq:{q}:active
    the other keys, the argument and the output: as includes/move-due.lua declares them
]]
--- @include "now-ms"
--- @include "move-due"

return move_due(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]))
