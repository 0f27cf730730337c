--[[
  Schedules a job to run later: writes its row and puts its id on schedule at run-at.

  Input:
    KEYS[1] row       emq:{q}:job:<id>
    KEYS[2] schedule  emq:{q}:schedule

    ARGV[1] id        branded id of kind JOB
    ARGV[2] payload
    ARGV[3] run_at    ms since the Unix epoch

  Output: add_job's reply (includes/add-job.lua): 1 scheduled, 0 duplicate, or EMQKIND
]]
--- @include "add-job"

return add_job(KEYS[1], KEYS[2], ARGV[3], ARGV[1], ARGV[2], "scheduled")
