// One JSON object per line, the way a log collector (journald, Loki, CloudWatch) reads structured logs:
// the access log on standard output, failures on standard error.

/** `fields` as one line: `time` first, then the fields, undefined ones left out. */
export function jsonText(fields: Record<string, unknown>): string {
  return JSON.stringify({ time: new Date().toISOString(), ...fields }) + '\n';
}

/** Writes `fields` as one line (jsonText). */
export function jsonLine(stream: NodeJS.WriteStream, fields: Record<string, unknown>): void {
  stream.write(jsonText(fields));
}
