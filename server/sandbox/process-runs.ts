// Whether a process still runs, for the code that must tell a live holder from a dead one (a run
// directory's owner, a lock's holder).

/** Whether process `pid` runs on this host (signal 0 checks without sending anything). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
