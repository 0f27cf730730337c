--[[
  Promotes scheduled jobs that are due (run-at at or before server now) to pending.

  Input:
    KEYS[1] schedule  emq:{q}:schedule
    KEYS[2] pending   emq:{q}:pending
    KEYS[3] row base  emq:{q}:job:   (never a key itself: while the queue's slot migrates, the
                                     cluster answers TRYAGAIN until SETSLOT ... NODE)

    ARGV[1] batch     the most ids moved in one call

  Output:
    the number of ids moved
]]
--- @include "now-ms"
--- @include "move-due"

return move_due(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]))
