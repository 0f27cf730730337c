// A console line split into arguments by redis-cli's rules (sdssplitargs): blanks separate; "double
// quotes" take \xHH, \n, \r, \t, \b, \a, \\ and \" escapes; 'single quotes' are literal but for \';
// a closing quote must be followed by a blank or the end. Arguments are bytes, since "\xff" is one byte
// that no UTF-8 string holds. Free of Node APIs: the page splits the same way.

const encoder = new TextEncoder();

export class LineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LineError';
  }
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', a: '\u0007' };
const BLANK = /[ \t\n\r\v\f]/;

/** The arguments of one line, as bytes, or a LineError saying where the quoting broke. */
export function splitLine(line: string): Uint8Array[] {
  const args: Uint8Array[] = [];
  let i = 0;
  while (i < line.length) {
    while (i < line.length && BLANK.test(line[i]!)) i += 1;
    if (i >= line.length) break;
    const current: number[] = [];
    const text = (value: string) => current.push(...encoder.encode(value));
    /**
     * The character at `at` as UTF-8, ASCII without an encoder call (this runs once per character);
     * answers its length in UTF-16 units, 2 for a character beyond U+FFFF (a pair read one unit at a
     * time was two U+FFFD).
     */
    const literal = (at: number): number => {
      const code = line.charCodeAt(at);
      if (code < 0x80) return (current.push(code), 1);
      const char = String.fromCodePoint(line.codePointAt(at)!);
      text(char);
      return char.length;
    };
    let quote: '"' | "'" | null = null;
    const start = i;
    for (;;) {
      if (i >= line.length) {
        if (quote) throw new LineError(`unbalanced ${quote} quote opened at character ${start + 1}`);
        break;
      }
      const char = line[i]!;
      // The closing quote, of either kind (an escape begins with a backslash, so this may come first).
      if (quote !== null && char === quote) {
        if (i + 1 < line.length && !BLANK.test(line[i + 1]!)) {
          throw new LineError(
            `a closing ${quote} at character ${i + 1} must be followed by a space or the end`,
          );
        }
        i += 1;
        break;
      }
      if (quote === '"') {
        if (char === '\\' && line[i + 1] === 'x' && /^[0-9a-fA-F]{2}$/.test(line.slice(i + 2, i + 4))) {
          current.push(parseInt(line.slice(i + 2, i + 4), 16));
          i += 4;
          continue;
        }
        if (char === '\\' && i + 1 < line.length) {
          const escape = ESCAPES[line[i + 1]!];
          if (escape) text(escape);
          i += escape ? 2 : 1 + literal(i + 1);
          continue;
        }
        i += literal(i);
      } else if (quote === "'") {
        if (char === '\\' && line[i + 1] === "'") {
          text("'");
          i += 2;
          continue;
        }
        i += literal(i);
      } else {
        if (BLANK.test(char)) break;
        if (char === '"' || char === "'") quote = char;
        else {
          i += literal(i);
          continue;
        }
        i += 1;
      }
    }
    args.push(Uint8Array.from(current));
  }
  return args;
}
