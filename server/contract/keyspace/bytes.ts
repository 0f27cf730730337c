// Keys and names are bytes on the wire. These helpers turn JS strings into those bytes
// (UTF-8) without Node's Buffer, so the keyspace runs in the browser as well.

const encoder = new TextEncoder();

/** The UTF-8 bytes a string is sent as. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** True when the string has a lone surrogate, i.e. no UTF-8 form. */
export function hasLoneSurrogate(text: string): boolean {
  return !text.isWellFormed();
}

/**
 * One line of ASCII for an error message: every byte outside printable ASCII, and `'` and `\`,
 * written as `\xNN`. The native module and the Lua scripts quote the same way (docs/wire.md).
 */
export function quoteBytes(value: string | Uint8Array): string {
  const bytes = typeof value === 'string' ? utf8(value) : value;
  let out = "'";
  for (const byte of bytes) {
    const printable = byte >= 0x20 && byte <= 0x7e && byte !== 0x27 && byte !== 0x5c;
    out += printable ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return out + "'";
}
