// Check your understanding: each dive's exercises. The server decides where it can — each answer is
// sent through the console as a real call (the module's own layout check, CLUSTER KEYSLOT, a GET) and
// the reply says whether it holds. Free of Node and DOM APIs: the page and the tests read the same list.

const MODULE = '/protocol/the-owned-keyspace/';
const ID = 'JOB0Nb1VTbfnu4';
// Typed out, not built by the keyspace module: importing it here puts it in the every-page script,
// over that script's byte budget (tests/site/reader-features.test.ts).
const ORDERS_ROW = `emq:{orders}:job:${ID}`;
const ORDERS_PENDING = 'emq:{orders}:pending';
const IDENTITY = 'echomq:6.0.0';
/** Queue orders' enqueue of job ID, exactly as the module expects it. */
const ORDERS_ENQUEUE = `EMQ.ENQUEUE 2 ${ORDERS_ROW} ${ORDERS_PENDING} ${ID} x`;

/** A reader's answer as one console argument, single-quoted the redis-cli way. */
const arg = (answer: string) => `'${answer.replaceAll("'", "\\'")}'`;

/** What the console answered for the exercise's lines (the parts an exercise reads). */
export interface ConsoleAnswer {
  lines: Array<{ outcome: string; reply?: unknown; error?: { code: string; message: string } }>;
}

export interface Exercise {
  id: string;
  question: string;
  /** A text answer, or one of these choices. */
  choices?: string[];
  placeholder?: string;
  /** The console lines that put the answer to the server; none for a choice the server shows but cannot decide. */
  lines(answer: string): string[];
  node: 'standalone' | 'cluster';
  /** Whether the server's answer says the reader is right, and why, in one sentence. */
  check(result: ConsoleAnswer, answer: string): { ok: boolean; why: string };
}

const first = (result: ConsoleAnswer) => result.lines[0]!;
/**
 * What the server said, without the part that would give the answer away: the module's EMQKEY names
 * the key it expected, which is the right answer to a "type the key" exercise.
 */
const said = (line: ConsoleAnswer['lines'][number]) =>
  line.error
    ? line.error.message.replace(/: expected .*$/s, '')
    : line.outcome === 'reply'
      ? JSON.stringify(line.reply)
      : 'no reply';

/** The slots wanted, in words: "slot 12739" or "a slot from 0 to 100". */
const slotsWanted = (low: number, high: number) =>
  low === high ? `slot ${low}` : `a slot from ${low} to ${high}`;

function slotBetween(low: number, high: number, lands = 'That key lands') {
  return (result: ConsoleAnswer) => {
    const line = first(result);
    const n = Number(line.reply);
    if (line.outcome !== 'reply')
      return { ok: false, why: `The cluster could not say its slot: ${said(line)}.` };
    return n >= low && n <= high
      ? { ok: true, why: `The cluster says slot ${n}.` }
      : { ok: false, why: `${lands} on slot ${n}, not on ${slotsWanted(low, high)}.` };
  };
}

/**
 * The module's refusal of the reader's key, in the reader's terms: the exercise's call is hidden, so
 * "key 2 differs at byte 4" would name a key the reader never saw. It says where their key parts from
 * the one the module builds (bytes counted from 0), never the key itself.
 */
function refusal(line: ConsoleAnswer['lines'][number], answer: string, position: number, what: string) {
  const message = line.error?.message ?? '';
  const differs = /^EMQKEY key (\d+) differs at byte (\d+):/.exec(message);
  if (differs?.[1] === String(position)) {
    const at = Number(differs[2]);
    const same = new TextDecoder().decode(new TextEncoder().encode(answer).slice(0, at));
    return at === 0
      ? `Your ${what} differs from the one the module builds from its very first byte.`
      : `Your ${what} matches the one the module builds for ${at} bytes (${same}), then differs at byte ${at}, counting from 0.`;
  }
  if (differs)
    return `The module read the queue name from your ${what}, and the call's other key, of another queue, no longer matched it.`;
  if (/empty queue name/.test(message))
    return `Your ${what} has an empty queue name: a queue name needs at least one byte between { and }.`;
  return `The module refused your ${what}: ${said(line)}.`;
}

/** The check of a "type the key" exercise: the module taking the key (at `position` of the call) is the right answer. */
function takenByModule(why: string, position: number, what = 'key') {
  return (result: ConsoleAnswer, answer: string) => {
    const line = first(result);
    return line.outcome === 'reply'
      ? { ok: true, why }
      : { ok: false, why: refusal(line, answer, position, what) };
  };
}

/** A choice that one live call shows: the call, the choices, the `right` one, and why, either way. */
function choose(
  call: string,
  choices: string[],
  right: string,
  why: { right: (result: ConsoleAnswer) => string; wrong: string },
): Pick<Exercise, 'lines' | 'choices' | 'check'> {
  return {
    lines: () => [call],
    choices,
    check: (result, answer) =>
      answer === right ? { ok: true, why: why.right(result) } : { ok: false, why: why.wrong },
  };
}

/**
 * The part of an exercise that asks for a key on `slot`, which the cluster says; `beside` turns down,
 * saying why, an answer that lands there but misses the point (the example key itself).
 */
function keyOnSlot(
  slot: number,
  placeholder: string,
  beside: (answer: string) => string | undefined,
): Pick<Exercise, 'placeholder' | 'node' | 'lines' | 'check'> {
  return {
    placeholder,
    node: 'standalone',
    lines: (answer) => [`CLUSTER KEYSLOT ${arg(answer)}`],
    check: (result, answer) => {
      const why = beside(answer);
      return why === undefined ? slotBetween(slot, slot)(result) : { ok: false, why };
    },
  };
}

const noBraces = (answer: string) => answer !== '' && !/[{}\s]/.test(answer);

/** The part of an exercise that asks for a queue name whose keys land on a slot from `low` to `high`. */
function queueOnSlots(low: number, high: number): Pick<Exercise, 'placeholder' | 'node' | 'lines' | 'check'> {
  return {
    placeholder: 'a queue name',
    node: 'standalone',
    lines: (answer) => [`CLUSTER KEYSLOT ${arg(`emq:{${answer}}:pending`)}`],
    check: (result, answer) =>
      noBraces(answer)
        ? slotBetween(low, high, 'Its keys land')(result)
        : {
            ok: false,
            why: 'A queue name has at least one byte and no braces (spaces make it hard to type here).',
          },
  };
}

export const EXERCISES: Record<string, Exercise[]> = {
  [MODULE]: [
    {
      id: 'module-pending-key',
      question: 'Type the key of queue mira’s pending set, the sorted set where its ready jobs wait.',
      placeholder: 'emq:…',
      node: 'standalone',
      lines: (answer) => [`EMQ.ENQUEUE 2 emq:{mira}:job:${ID} ${arg(answer)} ${ID} x`],
      check: takenByModule(
        'EMQ.ENQUEUE took it: the module built the same bytes from the queue name mira.',
        2,
      ),
    },
    {
      id: 'module-same-slot',
      question:
        'Type any key of queue orders other than emq:{orders}:pending; the cluster will say its slot.',
      ...keyOnSlot(105, 'emq:{orders}:…', (answer) =>
        !answer.startsWith('emq:{orders}:') || answer === 'emq:{orders}:'
          ? 'That is not a key of queue orders: its keys start with emq:{orders}: and go on with a type.'
          : answer === ORDERS_PENDING
            ? 'That is the pending set itself: try another type of the same queue.'
            : undefined,
      ),
    },
    {
      id: 'module-native-verb',
      question: 'The native executor runs an enqueue with one command. Which?',
      node: 'standalone',
      // The live call shows it: the module's own command, answered by the module.
      ...choose(ORDERS_ENQUEUE, ['EVALSHA', 'EMQ.ENQUEUE'], 'EMQ.ENQUEUE', {
        right: (result) => `The module's own command; your keyspace answered ${said(first(result))}.`,
        wrong:
          'EVALSHA sends a Lua script by its sha: that is how the other executor, the scripted one, runs a transition.',
      }),
    },
  ],
  [`${MODULE}braced-grammar/`]: [
    {
      id: 'grammar-schedule-key',
      question: 'Type the key of queue billing’s schedule set.',
      placeholder: 'emq:…',
      node: 'standalone',
      lines: (answer) => [`EMQ.SCHEDULE 2 emq:{billing}:job:${ID} ${arg(answer)} ${ID} x 0`],
      check: takenByModule('EMQ.SCHEDULE took it as its schedule key: the module rebuilt the same bytes.', 2),
    },
    {
      id: 'grammar-row-key',
      question: `Type the row key of job ${ID} in queue orders.`,
      placeholder: 'emq:…',
      node: 'standalone',
      lines: (answer) => [`EMQ.ENQUEUE 2 ${arg(answer)} ${ORDERS_PENDING} ${ID} x`],
      check: takenByModule(
        'EMQ.ENQUEUE took it as the row: the module rebuilt it from the queue name and the id.',
        1,
        'row key',
      ),
    },
    {
      id: 'grammar-byte-7',
      question: `Make the native module refuse at byte 7: change key 2 of ${ORDERS_ENQUEUE}.`,
      placeholder: ORDERS_PENDING,
      node: 'standalone',
      lines: (answer) => [`EMQ.ENQUEUE 2 ${ORDERS_ROW} ${arg(answer)} ${ID} x`],
      check: (result) => {
        const line = first(result);
        return /^EMQKEY key 2 differs at byte 7:/.test(line.error?.message ?? '')
          ? { ok: true, why: `The module said: ${line.error!.message}` }
          : {
              ok: false,
              why:
                line.outcome === 'reply'
                  ? 'The module took that key: it is the key it expects, so nothing differs.'
                  : `The module said ${said(line)}, not key 2 at byte 7.`,
            };
      },
    },
  ],
  [`${MODULE}hashtag-and-slot/`]: [
    {
      id: 'slot-low-queue',
      question: 'Find a queue name whose keys land on a slot from 0 to 100.',
      ...queueOnSlots(0, 100),
    },
    {
      id: 'slot-same-as-vector',
      question: 'Type a key other than 123456789 that lands on slot 12739, the slot of 123456789.',
      ...keyOnSlot(12739, 'a key', (answer) =>
        answer === '123456789'
          ? 'That is 123456789 itself: make the cluster hash those bytes inside another key.'
          : undefined,
      ),
    },
    {
      id: 'slot-moved-or-emqwire',
      question: 'On a cluster, which answers first an EMQ.* call sent to a node that does not own its slot?',
      node: 'cluster',
      // The live call shows it: the node that does not own the slot answers before any module runs.
      ...choose(ORDERS_ENQUEUE, ['EMQWIRE', 'MOVED'], 'MOVED', {
        right: (result) =>
          `The server routes before any module runs; the owner then says ${said(first(result))}`,
        wrong:
          'EMQWIRE is the module’s answer, and a node calls the module only once the server has agreed to serve the call there; think about what a node that does not serve the slot does first.',
      }),
    },
    {
      id: 'slot-claim-mid-migration',
      question:
        'While orders’ slot 105 migrates to another node (some keys moved, some not), what does the claim get — it declares emq:{orders}:pending, emq:{orders}:active and the row base emq:{orders}:job:?',
      choices: [
        'ASK from the source, then served by the target after ASKING',
        'TRYAGAIN, on the source and on the target after ASKING',
        'MOVED to the target',
        'Served by the source, which still holds the queue',
      ],
      node: 'cluster',
      // The live part of the answer: the row base is never a key, on any node.
      lines: () => ['EXISTS emq:{orders}:job:'],
      check: (result, answer) => {
        const count = first(result).reply;
        const base =
          count === 0
            ? 'The row base emq:{orders}:job: is no key on the cluster (EXISTS counts 0 of it)'
            : `EXISTS emq:{orders}:job: counts ${said(first(result))}`;
        return answer.startsWith('TRYAGAIN')
          ? {
              ok: true,
              why: `${base}: the claim always names a missing key. While any of its keys is still on the source, the source answers TRYAGAIN, and so does the target after ASKING; once none is left on the source, the source answers ASK and the target after ASKING still TRYAGAIN. The claim is served only after CLUSTER SETSLOT … NODE ends the migration.`,
            }
          : {
              ok: false,
              why: `${base}. Think about a call whose keys are not all present on the node it reaches.`,
            };
      },
    },
  ],
  [`${MODULE}reserve/`]: [
    {
      id: 'reserve-identity-key',
      question: 'Type the key that holds the wire identity.',
      placeholder: 'a key',
      node: 'standalone',
      lines: (answer) => [`GET ${arg(answer)}`],
      check: (result) => {
        const line = first(result);
        return line.reply === IDENTITY
          ? { ok: true, why: `That key holds ${IDENTITY}, the identity installed on your keyspace.` }
          : line.outcome === 'refused'
            ? {
                ok: false,
                why: 'The console reads only keys that start with emq: or {emq}:, and that one starts with neither.',
              }
            : line.reply === null
              ? { ok: false, why: 'Your keyspace has no such key: nothing is stored there.' }
              : { ok: false, why: 'That key holds something other than the wire identity.' };
      },
    },
    {
      id: 'reserve-slot',
      question: 'Which slot does {emq}:version land on? Type the number.',
      placeholder: '0–16383',
      node: 'standalone',
      lines: () => ['CLUSTER KEYSLOT {emq}:version'],
      check: (result, answer) => {
        const line = first(result);
        return String(line.reply) === answer.trim()
          ? { ok: true, why: `The cluster says slot ${String(line.reply)}: the hashtag is emq.` }
          : { ok: false, why: 'The cluster puts {emq}:version on another slot than that number.' };
      },
    },
    {
      id: 'reserve-shared-slot',
      question: 'Type a queue name whose keys share the reserve’s slot (but never its keys).',
      ...queueOnSlots(9051, 9051),
    },
  ],
};

export function exercisesFor(route: string): Exercise[] {
  return EXERCISES[route] ?? [];
}
