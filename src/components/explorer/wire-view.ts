// Replies and the wire as redis-cli prints them: (integer) 1, (nil), "text", numbered arrays, (error) …
// One set of functions for the console and every experiment. Free of Node and DOM APIs.

import type { WireCommand, WireProof, WireReply } from '../../../server/contract/wire/types.ts';
import { markup, type SafeHtml } from '../../lib/html.ts';
import { breakable } from './key-text.ts';

function quoted(text: string): string {
  return JSON.stringify(text);
}

/** A reply in redis-cli's words, one line per element of an array (indented for nested arrays). */
export function cliReply(reply: WireReply | undefined, indent = ''): string {
  if (reply === null || reply === undefined) return '(nil)';
  if (typeof reply === 'number') return `(integer) ${reply}`;
  if (typeof reply === 'string') return quoted(reply);
  if (Array.isArray(reply)) {
    if (reply.length === 0) return '(empty array)';
    const width = String(reply.length).length;
    return reply
      .map((item, i) => {
        const mark = `${String(i + 1).padStart(width)}) `;
        const inner = cliReply(item, indent + ' '.repeat(mark.length));
        return `${i === 0 ? '' : indent}${mark}${inner}`;
      })
      .join('\n');
  }
  return `(error) ${reply.error}`;
}

const utf8Text = new TextDecoder('utf-8', { fatal: true });

/**
 * A wire line as the page shows it: redis-cli writes every byte over 0x7f as \xHH, so é€ would read
 * "\xc3\xa9\xe2\x82\xac" here and é€ everywhere else; runs of such bytes that are whole UTF-8 characters
 * are shown as those characters (the same bytes). Control bytes and broken UTF-8 keep their escapes.
 */
export function readableLine(line: string): string {
  let out = '';
  let bytes: number[] = [];
  const flush = () => {
    if (bytes.length === 0) return;
    let text: string | null = null;
    try {
      text = utf8Text.decode(Uint8Array.from(bytes));
    } catch {
      text = null;
    }
    out +=
      text !== null && !/[\u0000-\u009f]/.test(text)
        ? text
        : bytes.map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
    bytes = [];
  };
  for (let i = 0; i < line.length;) {
    const hex = line.slice(i + 2, i + 4);
    if (line[i] === '\\' && line[i + 1] === 'x' && /^[0-9a-f]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 4;
      continue;
    }
    flush();
    // any other escape (\\, \", \n…) is copied whole, so its backslash never starts a \x above
    const step = line[i] === '\\' && i + 1 < line.length ? 2 : 1;
    out += line.slice(i, i + step);
    i += step;
  }
  flush();
  return out;
}

/** What the server's own counts say, in one sentence. */
export function proofText(proof: WireProof | null): string {
  // Nothing sent and nothing received: the empty list below says it.
  if (!proof || (proof.listed === 0 && proof.reached === 0 && proof.bytesReceived === 0)) return '';
  const extra =
    proof.reached === proof.listed
      ? ''
      : proof.reached > proof.listed
        ? ` (${proof.reached}: a script’s own calls count too)`
        : ` (${proof.reached}: a command refused before it ran, such as MOVED or CROSSSLOT, is not counted)`;
  return `the server received ${proof.bytesReceived} bytes — ${proof.listed === 1 ? 'exactly this command' : `exactly these ${proof.listed} commands`}${extra}`;
}

/**
 * The server's own count of the commands it ran during a run, said plainly beside what was sent: a
 * script's own calls count there too, and a command refused before it ran (MOVED, CROSSSLOT) does not.
 */
export function reachedView(proof: WireProof): SafeHtml {
  const { reached, listed } = proof;
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const said =
    reached === 0 && listed === 0
      ? 'The server itself counted no command: nothing reached it.'
      : reached === listed
        ? `The server itself counted ${plural(reached, 'command')}, the same as sent.`
        : reached > listed
          ? `The server itself counted ${plural(reached, 'command')}: the ${plural(listed, 'command')} sent, and ${plural(reached - listed, 'call')} ${listed === 1 ? 'it' : 'they'} made inside the server (a script’s own calls are counted too).`
          : `The server itself counted ${plural(reached, 'command')} of the ${listed} sent: a command refused before it ran, such as MOVED or CROSSSLOT, is not counted.`;
  return markup`<p class="xp-proof" data-reached="${reached}">${said}</p>`;
}

/** The commands a run sent, collapsible, redis-cli style, each with its reply (and its node on a cluster). */
export function wireView(
  wire: WireCommand[] | undefined,
  proof: WireProof | null | undefined,
  label = 'Commands sent',
): SafeHtml | '' {
  if (!wire) return '';
  const rows = wire.map(
    ({ line, reply, node }) =>
      markup`<li><code class="xp-wire-cmd">${node ? markup`<span class="xp-wire-node">${node}&gt;</span> ` : markup`&gt; `}${breakable(readableLine(line))}</code><pre class="xp-wire-reply">${cliReply(reply)}</pre></li>`,
  );
  return markup`<details class="xp-wire"><summary>${label}: ${wire.length} <span class="xp-hint">${proofText(proof ?? null)}</span></summary>${
    wire.length
      ? markup`<ol class="xp-wire-list">${rows}</ol>`
      : markup`<p class="xp-note">Nothing was sent.</p>`
  }</details>`;
}
