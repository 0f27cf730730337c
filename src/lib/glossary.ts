/**
 * The course's glossary, the one source of every definition: the home page's glossary lists it
 * (Glossary.astro), each page's inline definitions open its short line in place (Term.astro), and the
 * markdown twins — and so the search index and llms-full.txt — carry it as a list. Text in backticks is
 * code. `names` is how a reader meets the term in prose: the openings test
 * (tests/unit/plain-openings.test.ts) holds every page to define a term before its opening names it.
 */

export interface GlossaryTerm {
  /** The anchor on the home page is `glossary-<id>`. */
  id: string;
  term: string;
  /** One plain sentence, shown in place where a page first uses the term. */
  short: string;
  /** The glossary's definition, a line or two. */
  text: string;
  /** How the term is written in prose: a code word (case kept) or words (any case). */
  names: RegExp;
}

export const GLOSSARY: readonly GlossaryTerm[] = [
  {
    id: 'slot',
    term: 'Slot',
    short:
      'A Valkey cluster splits all keys into 16384 numbered slots and gives each slot to one server (node); a key’s slot says which node holds it.',
    text: 'a Valkey cluster divides all keys into 16384 slots, numbered 0 to 16383, and each slot is served by one node, its owner. A key’s slot is CRC16-XMODEM of its hashtag, modulo 16384.',
    names: /\bslots?\b/i,
  },
  {
    id: 'hashtag',
    term: 'Hashtag',
    short:
      'The part of a key a cluster hashes to pick its slot: the bytes between the first { and the next }, when there is at least one; otherwise the whole key.',
    text: 'the part of a key the cluster hashes — the bytes between the first `{` and the first `}` after it, when at least one byte lies between them; otherwise the whole key (`foo{}{bar}` is hashed whole). In `emq:{orders}:pending` it is `orders`.',
    names: /\bhashtags?\b/i,
  },
  {
    id: 'crc16',
    term: 'CRC16-XMODEM',
    short:
      'The checksum a cluster computes over a key’s hashtag; that number modulo 16384 is the key’s slot.',
    text: 'the 16-bit checksum (polynomial `0x1021`, initial value 0, no bit reflection) a cluster computes over a key’s hashtag; reduced modulo 16384 it gives the slot. Its check value: `123456789` gives `0x31C3`, slot 12739.',
    names: /CRC16/,
  },
  {
    id: 'crossslot',
    term: 'CROSSSLOT',
    short: 'A cluster node’s refusal of one call whose keys are on more than one slot; nothing runs.',
    text: "a cluster node’s refusal of one command whose declared keys are on more than one slot: `CROSSSLOT Keys in request don't hash to the same slot`. Nothing runs.",
    names: /CROSSSLOT/,
  },
  {
    id: 'moved',
    term: 'MOVED',
    short:
      'A cluster node’s answer for a key whose slot it does not serve: “ask that other node”; it runs nothing.',
    text: '`MOVED <slot> <host:port>`, a node’s answer for a slot it does not serve: “that node does”. A cluster client updates its slot map and sends the command there.',
    names: /\bMOVED\b/,
  },
  {
    id: 'ask',
    term: 'ASK',
    short:
      'While a slot moves to another node, the old owner’s answer for keys that are not on it: “ask the new node, this once”.',
    text: '`ASK <slot> <host:port>`, sent only while a slot migrates, and only by the node that owns it, for keys it no longer holds or never held. The client sends `ASKING`, then the command, to the named node, once; its slot map stays as it was.',
    names: /\bASK\b/,
  },
  {
    id: 'tryagain',
    term: 'TRYAGAIN',
    short:
      'While a slot moves, a node’s answer to a call naming several keys when only some are there: “wait, then send it again”.',
    text: '`TRYAGAIN Multiple keys request during rehashing of slot`, a node’s answer while a slot migrates, to a call that names several of its keys when some are missing on that node (on the owner: some missing, some still there). A cluster client waits and sends the call again.',
    names: /TRYAGAIN/,
  },
  {
    id: 'emqwire',
    term: 'EMQWIRE',
    short:
      'The native module’s refusal when the server around it is not one it serves: a cluster, or a keyspace of another wire.',
    text: 'the native module’s refusal about the server it runs in: `EMQWIRE expected a standalone server but cluster mode is enabled` on a cluster node, or a missing or different wire identity at `{emq}:version`. Nothing is written.',
    names: /EMQWIRE/,
  },
  {
    id: 'emqkey',
    term: 'EMQKEY',
    short:
      'The native module’s refusal of a call whose keys are not exactly the keys the key shape gives; it names the key and the first byte that differs.',
    text: 'the native module’s refusal of a call whose keys break the layout: the wrong number of keys, an empty queue name, or a key that differs from the one the layout gives — `EMQKEY key <pos> differs at byte <offset>: …`. Nothing is written.',
    names: /EMQKEY/,
  },
  {
    id: 'executor',
    term: 'Executor',
    short:
      'What runs a job’s step on the server: the scripted executor sends a Lua script, the native executor the same keys to an EMQ.* command.',
    text: 'what runs a job transition. The scripted executor sends Lua with `EVALSHA`; the native executor sends the same keys to an `EMQ.*` command.',
    names: /\bexecutors?\b/i,
  },
  {
    id: 'trafikey',
    term: 'trafikey',
    short:
      'This project’s native module: code loaded into Valkey that adds one EMQ.* command per job step and checks every key of a call, byte for byte.',
    text: 'this project’s native module, a Valkey module in Rust (`native-module/`). It adds one `EMQ.*` command per core job transition and checks every key of a call, byte for byte, before it writes.',
    names: /trafikey|native module/i,
  },
  {
    id: 'claim2',
    term: '@claim2',
    short:
      'The claim script (claim-3.lua here): it takes the next ready job and derives that job’s row key from a declared base.',
    text: 'EchoMQ’s name for its claim script; here it is `claim-3.lua`, which `jobs.claim(queue, leaseMs)` runs. It declares the pending set, the active set and the row base `emq:{q}:job:` as `KEYS[3]`, and builds the claimed job’s row as `KEYS[3] .. id`.',
    names: /@claim2/,
  },
  {
    id: 'admission-verbs',
    term: 'Admission verbs',
    short: 'The calls that bring a job into a queue; each checks the queue name before anything is sent.',
    text: 'the calls that bring a job into a queue — `enqueue`, `enqueueMany` and `laneEnqueue` (EchoMQ’s names are in the module’s table). Each runs the admission check `validQueue` on the queue name before any wire. Here `schedule` runs the same check too.',
    names: /admission verbs?/i,
  },
  {
    id: 'wire-identity',
    term: 'Wire identity',
    short:
      'The string at {emq}:version, such as echomq:6.0.0, that says which version of the protocol a keyspace speaks.',
    text: 'the string at `{emq}:version`, such as `echomq:4.0.0`, naming the wire a keyspace speaks.',
    names: /wire identit(?:y|ies)/i,
  },
  {
    id: 'connector',
    term: 'Connector',
    short:
      'What a program opens to talk to one Valkey server: it checks the wire identity first, then carries the job calls.',
    text: 'what a host opens to talk to one server. It runs a fence on the wire identity when it connects, then carries the job verbs.',
    names: /\bconnectors?\b/i,
  },
  {
    id: 'wire-4-wire-6',
    term: 'Wire 4, wire 6',
    short:
      'The two protocol versions this project speaks: wire 4 is the scripted one, wire 6 the native module’s.',
    text: 'the two wires this project speaks, named by their identity. Wire 4 (`echomq:4.0.0`) is the scripted connector’s, which claims the identity when it is absent; wire 6 (`echomq:6.0.0`) is the native module’s, installed by an operator and only read.',
    names: /\bwire [46]\b/i,
  },
];

export function glossaryTerm(id: string): GlossaryTerm {
  const term = GLOSSARY.find((t) => t.id === id);
  if (!term)
    throw new Error(`no glossary term "${id}"; the terms are ${GLOSSARY.map((t) => t.id).join(', ')}`);
  return term;
}

/** The anchor of a term on the home page. */
export const glossaryHref = (id: string) => `/#glossary-${id}`;

/** A definition's text as pieces, code or not: backticks mark code. */
export function codeSpans(text: string): Array<{ code: boolean; text: string }> {
  return text.split('`').map((piece, i) => ({ code: i % 2 === 1, text: piece }));
}

/**
 * The glossary as a markdown list, for the twins (and so llms-full.txt, and the search index, which
 * reads each `<dfn>` as one entry linking to the term).
 */
export function glossaryMarkdown(): string {
  return GLOSSARY.map((t) => `- <dfn id="glossary-${t.id}">${t.term}</dfn>: ${t.text}`).join('\n');
}
