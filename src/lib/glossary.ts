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
      'While a slot moves, a node’s answer to a call naming several keys when not all are there (on the new node, also when none are): “wait, then send it again”.',
    text: '`TRYAGAIN Multiple keys request during rehashing of slot`, a node’s answer while a slot migrates, to a call that names several of its keys when some are missing on that node (on the owner: some missing, some still there; on the importing target after `ASKING`: any missing, all of them included). A cluster client waits and sends the call again.',
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
  {
    id: 'host',
    term: 'Host',
    short:
      'The program that uses the queue: it builds every key and sends each job’s step to Valkey (here, the TypeScript under server/).',
    text: 'the program that uses EchoMQ: it builds every key through the keyspace module and sends each transition to the server. In this project it is the TypeScript under `server/`; EchoMQ’s own host is Elixir.',
    names: /\bhosts?\b(?!:)/i,
  },
  {
    id: 'transition',
    term: 'Transition',
    short:
      'One step of a job’s life, run as one atomic call: enqueue, schedule, claim, complete, retry, promote or reap.',
    text: 'one step of a job’s life, run on the server as one atomic call with declared keys: enqueue, schedule, claim, complete, retry, promote, reap (and the lane enqueue). Each has one key list and one argument list, shared by both executors.',
    names: /\btransitions?\b/i,
  },
  {
    id: 'wire',
    term: 'Wire',
    short:
      'What travels between a program and Valkey: the commands, their keys and arguments, and the replies; EchoMQ numbers its versions.',
    text: 'what travels between a host and the server — each command, its keys and arguments, and the reply — byte for byte. EchoMQ numbers the versions of this agreement (wire 4, wire 6) and writes the one a keyspace speaks into it as its wire identity.',
    names: /\bwire\b(?! [46]\b)(?! identit)/i,
  },
  {
    id: 'fence',
    term: 'Fence',
    short:
      'The check a connector makes when it connects: it reads {emq}:version and refuses to go on when the keyspace speaks another wire.',
    text: 'the check a connector runs once when it connects: it reads the wire identity at `{emq}:version` and goes on only when it is its own (wire 4 claims it with `SET … NX` when absent; wire 6 only reads). It keeps speakers of different wires out of one keyspace.',
    names: /\bfenc(?:e|es|ed)\b/i,
  },
  {
    id: 'lane',
    term: 'Lane',
    short:
      'A queue inside a queue, one per group of jobs (such as one customer), taken in turn so no group starves the others.',
    text: 'a per-group line of jobs inside one queue — `emq:{q}:g:<group>:pending`, with a ring of groups to serve in turn and per-group limits — so that one busy group does not starve the others. Its keys share the queue’s hashtag.',
    names: /\blanes?\b/i,
  },
  {
    id: 'lease',
    term: 'Lease',
    short:
      'How long a claimed job stays its worker’s: the claim sets a deadline on the server’s clock; past it, reap hands the job back.',
    text: 'the time a claimed job stays its worker’s. The claim stores the deadline (the server’s clock plus `lease_ms`) as the job’s score in the active set; when it passes, reap moves the job back to pending for another worker.',
    names: /\blease\b(?!\.rs)/i,
  },
  {
    id: 'promote',
    term: 'Promote',
    short: 'The transition that moves scheduled jobs whose time has come into the pending set.',
    text: 'the transition that moves scheduled jobs whose run-at time has passed (on the server’s clock) from the schedule to the pending set, up to a batch at a time.',
    names: /\bpromote\b/i,
  },
  {
    id: 'reap',
    term: 'Reap',
    short: 'The transition that takes back claimed jobs whose lease ran out and makes them pending again.',
    text: 'the transition that moves claimed jobs whose lease has passed (on the server’s clock) from the active set back to pending, up to a batch at a time, so a job whose worker died is run again.',
    names: /\breap\b/i,
  },
  {
    id: 'branded-id',
    term: 'Branded id',
    short:
      'A 14-character id: a 3-letter kind such as JOB, then 11 base62 characters; ids of one kind sort in the order they were made.',
    text: 'a 14-byte id: a 3-letter upper-case kind (`JOB` for jobs), then 11 base62 characters of a number made from the time, the minting node and a sequence, padded with `0`. Within one kind, byte order is mint order, so `JOB0Nb1VTbfnu4` sorts after every job made before it.',
    names: /\bbranded ids?\b/i,
  },
  {
    id: 'base62',
    term: 'Base62',
    short: 'Numbers written with 62 symbols: 0–9, then A–Z, then a–z.',
    text: 'a way of writing a number with 62 symbols, `0-9`, `A-Z`, `a-z`, in that order; 11 of them hold any 63-bit number. With equal lengths, byte order equals numeric order.',
    names: /\bbase62\b/i,
  },
  {
    id: 'asking',
    term: 'ASKING',
    short:
      'The command a client sends to the node an ASK named, just before the one command it retries there; it holds for that command only.',
    text: '`ASKING`, sent to the importing node just before the one command an `ASK` sent there; it lets that node serve the command for a slot it does not own yet, and holds for that one command only. Without it the node answers `MOVED` to the owner.',
    names: /\bASKING\b/,
  },
  {
    id: 'migrateslots',
    term: 'MIGRATESLOTS',
    short:
      'Valkey 9’s one command that moves whole slots: it copies them in the background, then hands them over at once.',
    text: '`CLUSTER MIGRATESLOTS SLOTSRANGE <start> <end> NODE <target-id>`, Valkey 9’s atomic slot migration, sent to the source: it copies the slots to the target in the background and hands them over at once; clients meet one `MOVED`, never `ASK` or `TRYAGAIN`.',
    names: /MIGRATESLOTS/,
  },
  {
    id: 'primary',
    term: 'Primary',
    short: 'A cluster node that serves slots and takes writes (a replica only copies a primary).',
    text: 'a cluster node that owns slots and serves their reads and writes; a replica keeps a copy of one primary and takes over if it fails. The sandbox’s clusters are three primaries each, with no replicas.',
    names: /\bprimar(?:y|ies)\b/i,
  },
  {
    id: 'iovalkey',
    term: 'iovalkey',
    short:
      'The Node.js Valkey client this site uses; its cluster client follows MOVED and ASK and retries TRYAGAIN by itself.',
    text: 'the Node.js client for Valkey this site uses (version 0.4, a fork of ioredis). Its `Cluster` client keeps a slot map, follows `MOVED` and `ASK`, and retries `TRYAGAIN` after a delay, up to `maxRedirections` error replies per call.',
    names: /\biovalkey\b/i,
  },
  {
    id: 'redis-patterns',
    term: 'Redis Patterns Applied',
    short:
      'A companion course of Redis and Valkey patterns, one numbered lesson each; R2.05 is hash-tag co-location, the pattern this module applies.',
    text: 'a companion course of patterns for Redis and Valkey, one numbered lesson each. Its lesson R2.05, hash-tag co-location, puts the shared part of a group’s keys in braces so the group shares one slot: the pattern this module makes total.',
    names: /Redis Patterns Applied|redis-patterns/i,
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
