// A command line as redis-cli would print it: bare words where they are plain printable ASCII, else
// double-quoted with \", \\, \n, \r, \t and \xNN for any other byte, so the line is exact in bytes and
// can be pasted back into the console. Free of Node APIs: the page prints replies the same way.

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const BARE = /^[!#-&(-[\]-~]+$/; // printable ASCII but space, " ' and \

const ESCAPED: Record<number, string> = { 0x22: '\\"', 0x5c: '\\\\', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t' };

/** One argument, quoted only when it must be. */
export function reprArg(value: string | Uint8Array): string {
  // Printable ASCII is its own bytes: bare without being encoded first.
  if (typeof value === 'string' && BARE.test(value)) return value;
  const bytes = typeof value === 'string' ? encoder.encode(value) : value;
  const plain = typeof value === 'string' ? value : decoder.decode(bytes);
  if (bytes.length > 0 && bytes.length === plain.length && BARE.test(plain)) return plain;
  let out = '"';
  for (const byte of bytes) {
    if (ESCAPED[byte]) out += ESCAPED[byte];
    else if (byte >= 0x20 && byte <= 0x7e) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return out + '"';
}

/** A whole command, as typed into redis-cli. */
export function reprCommand(argv: ReadonlyArray<string | Uint8Array>): string {
  return argv.map(reprArg).join(' ');
}
