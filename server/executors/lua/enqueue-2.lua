--[[
  Enqueues a job: writes its row and puts its id on pending.

  Input:
    KEYS[1] row       emq:{q}:job:<id>
    KEYS[2] pending   emq:{q}:pending

    ARGV[1] id        branded id of kind JOB
    ARGV[2] payload

  Output: add_job's reply (includes/add-job.lua): 1 enqueued, 0 duplicate, or EMQKIND
]]
--- @include "add-job"

-- Score 0 for all: members sort by bytes, and branded ids sort in mint order.
return add_job(KEYS[1], KEYS[2], 0, ARGV[1], ARGV[2], "pending")
