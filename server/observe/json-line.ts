// One JSON object per line, the way a log collector (journald, Loki, CloudWatch) reads structured logs:
// the access log on standard output, failures on standard error.

/** Writes `fields` as one line: `time` first, then the fields, undefined ones left out. */
export function jsonLine(stream: NodeJS.WriteStream, fields: Record<string, unknown>): void {
  stream.write(JSON.stringify({ time: new Date().toISOString(), ...fields }) + '\n');
}
