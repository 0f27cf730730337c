// A client that goes away mid-request (a slow body closed for its pace, a reader who closed the tab) is
// the client's business: one line in the log, never a stack, and never a 500.

/** Whether `error` is a request abandoned by its client (or closed for its pace) rather than a bug. */
export function isExpectedAbort(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return (
    code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || (error as Error)?.message === 'aborted'
  );
}
