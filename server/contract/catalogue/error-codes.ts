// Every error a reader or an agent can meet, in one table: who answers it, when, and its exact text.
// The course's llms-full.txt and the API catalogue (GET /api/experiments) are generated from this table;
// tests hold each text to the code that produces it and to docs/wire.md, so none of them can drift.
//
// A text is the message as sent, with `<name>` where a value is filled in (wire.md's convention).

/** Who answers: the host before any wire, a Lua script, the native module, the server's own routing
 * (cluster slots, script cache), a connector's fence on `{emq}:version`, or the explorer's JSON API. */
export type Answerer = 'host' | 'script' | 'module' | 'server' | 'connector' | 'API';

export interface ErrorCode {
  /** The code: the first word of a server error reply, `KeyspaceError.code`, or the API's `error.code`. */
  code: string;
  /** Among the rows of one code, the name that code asks for this one by (to build it, or to provoke it). */
  variant?: string;
  by: readonly Answerer[];
  when: string;
  text: string;
  /** The HTTP status, for the API's codes. */
  status?: number;
}

const QUEUE_RULE = "a queue name is one or more bytes of UTF-8, any byte but '{', '}' and NUL";
const IDENTITY_AT = "expected wire identity 'echomq:6.0.0' at '{emq}:version'";
// The server's own texts, which the module answers as the command would and a script meets in it.
const WRONG_TYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';
const NOT_AN_INTEGER = 'ERR hash value is not an integer';
const OVERFLOW = 'ERR increment or decrement would overflow';
/** What the server adds to the error a script's command met: where in which script. */
const IN_SCRIPT = ' script: <sha>, on @user_script:<line>.';

/** A row as written in a group: who answers it is said once, by the group. */
type GroupRow = Omit<ErrorCode, 'by'>;

/** The rows of one group, each answered by `by`. */
function answeredBy<const B extends readonly Answerer[]>(by: B) {
  return <const R extends readonly GroupRow[]>(rows: R): Array<R[number] & { by: B }> =>
    rows.map((row) => ({ ...row, by }));
}

const ROWS = [
  // The host: server/keyspace, before a single command is sent.
  ...answeredBy(['host'])([
    {
      code: 'EMPTY_QUEUE',
      when: 'an admission verb (enqueue, enqueue-many, lane enqueue) is given the empty queue name',
      text: `invalid queue name: it is empty; ${QUEUE_RULE}`,
    },
    {
      code: 'BRACE',
      when: 'an admission verb is given a queue name holding `{` or `}`',
      text: `invalid queue name: byte <offset> is '<brace>' (<hex>); ${QUEUE_RULE}`,
    },
    {
      code: 'NUL',
      when: 'an admission verb is given a queue name holding a NUL byte',
      text: `invalid queue name: byte <offset> is NUL (0x00); ${QUEUE_RULE}`,
    },
    {
      code: 'NOT_UTF8',
      when: 'an admission verb is given a queue name that is not valid UTF-8 (a lone surrogate)',
      text: `invalid queue name: it is not valid UTF-8 (a lone surrogate); ${QUEUE_RULE}`,
    },
    {
      code: 'BAD_ID',
      when: 'a job id or group is not a branded id (3 letters A-Z and 11 base62 characters, at most 2^63-1)',
      text: 'invalid <what> "<id>": <problem>',
    },
    {
      code: 'BAD_TYPE',
      when: 'a key is asked for a type outside the closed registry',
      text: 'unknown key type "<type>": the type registry is closed',
    },
  ]),

  // The transitions themselves: the scripts and the native module reply the same bytes.
  ...answeredBy(['script', 'module'])([
    {
      code: 'EMQKIND',
      when: 'enqueue, schedule or lane enqueue is given an id whose namespace is not JOB',
      text: "EMQKIND expected an id of kind 'JOB' but found '<id>'",
    },
    {
      code: 'EMQSTALE',
      when: "complete or retry is given a token that is not the row's attempts (the lease was superseded)",
      text: "EMQSTALE expected token '<attempts>' for '<id>' but found '<token>'",
    },
  ]),

  // The native module's checks, in their order: key count, layout, server mode, wire identity.
  ...answeredBy(['module'])([
    {
      code: 'EMQKEY',
      variant: 'count',
      when: 'an EMQ.* command is given the wrong number of keys',
      text: 'EMQKEY EMQ.<VERB> expects <n> keys but found <m>',
    },
    {
      code: 'EMQKEY',
      variant: 'differs',
      when: 'a declared key differs from the one rebuilt from the queue name in key 1',
      text: "EMQKEY key <pos> differs at byte <offset>: expected '<expected>' but found '<found>'",
    },
    {
      code: 'EMQKEY',
      variant: 'unparsed',
      when: 'key 1 does not parse as `emq:{<name>}:` and the verb’s first type; no name was recovered, so the expected key holds the literal text `<queue>`',
      text: "EMQKEY key 1 differs at byte <offset>: expected 'emq:{<queue>}:<type>' but found '<found>'",
    },
    {
      code: 'EMQKEY',
      variant: 'empty-name',
      when: 'the queue name recovered from key 1 is empty',
      text: "EMQKEY key 1 has an empty queue name at byte 5: expected at least one byte between '{' and '}'",
    },
    {
      code: 'EMQWIRE',
      variant: 'cluster',
      when: 'an EMQ.* command reaches a cluster-enabled server (after the layout check)',
      text: 'EMQWIRE expected a standalone server but cluster mode is enabled',
    },
    {
      code: 'EMQWIRE',
      variant: 'not-installed',
      when: '`{emq}:version` is absent: the wire identity was never installed',
      text: `EMQWIRE ${IDENTITY_AT} but found none (not installed)`,
    },
    {
      code: 'EMQWIRE',
      variant: 'foreign',
      when: '`{emq}:version` holds another identity (e.g. a wire 4 connector claimed it)',
      text: `EMQWIRE ${IDENTITY_AT} but found '<value>'`,
    },
    {
      code: 'EMQWIRE',
      variant: 'not-a-string',
      when: '`{emq}:version` is not a string; `<type>` is as `TYPE` names it (`hash`, `list`, …)',
      text: `EMQWIRE ${IDENTITY_AT} but found a <type>`,
    },
    {
      code: 'ERR',
      variant: 'numkeys',
      when: 'numkeys is not an integer (at the key-count step)',
      text: "ERR numkeys must be an integer but found '<value>'",
    },
    {
      code: 'ERR',
      variant: 'arity',
      when: 'the key count is right but the number of arguments is not',
      text: "ERR wrong number of arguments for 'EMQ.<VERB>' command",
    },
    {
      code: 'ERR',
      variant: 'integer',
      when: 'a numeric argument (run_at_ms, lease_ms, delay_ms, max_attempts, batch) is not an integer',
      text: "ERR <name> must be an integer but found '<value>'",
    },
  ]),

  // Outside the contract: the module refuses before it writes, with the server's own text.
  ...answeredBy(['module'])([
    {
      code: 'WRONGTYPE',
      variant: 'refused',
      when: 'a key a transition touches holds another type than the transitions write (outside the contract); the module checks every key before its first write, and writes nothing',
      text: WRONG_TYPE,
    },
    {
      code: 'ERR',
      variant: 'hash-value',
      when: 'an attempts or count field holds something that is not an integer (outside the contract, as WRONGTYPE)',
      text: NOT_AN_INTEGER,
    },
    {
      code: 'ERR',
      variant: 'overflow',
      when: 'an attempts or count field is already at 2^63-1, so adding one would overflow (outside the contract)',
      text: OVERFLOW,
    },
  ]),

  // The same, met by a script at the command that fails, after the writes before it: the server passes
  // the command's error on and says where (the script's sha and line).
  ...answeredBy(['script'])([
    {
      code: 'WRONGTYPE',
      variant: 'in-script',
      when: 'a script’s command meets a key of another type than the transitions write (outside the contract)',
      text: WRONG_TYPE + IN_SCRIPT,
    },
    {
      code: 'ERR',
      variant: 'hash-value-in-script',
      when: 'a script adds one to an attempts or count field that is not an integer (outside the contract)',
      text: NOT_AN_INTEGER + IN_SCRIPT,
    },
    {
      code: 'ERR',
      variant: 'overflow-in-script',
      when: 'a script adds one to an attempts or count field already at 2^63-1 (outside the contract)',
      text: OVERFLOW + IN_SCRIPT,
    },
  ]),

  // The server's own answers, before or beside the transition.
  ...answeredBy(['server'])([
    {
      code: 'NOSCRIPT',
      when: 'EVALSHA names a script the server has not loaded; the scripted executor then sends SCRIPT LOAD and retries once',
      text: 'NOSCRIPT No matching script.',
    },
    {
      code: 'CROSSSLOT',
      when: 'a cluster node is given one command whose declared keys hash to different slots',
      text: "CROSSSLOT Keys in request don't hash to the same slot",
    },
    {
      code: 'MOVED',
      when: 'a cluster node is asked about a slot another node serves (mid-migration, the importing node too, unless the client sent ASKING first)',
      text: 'MOVED <slot> <host>:<port>',
    },
    {
      code: 'ASK',
      when: 'only the owner of a migrating slot answers it: the keys a call names are no longer there (one moved key, or several all missing); the client sends ASKING and the call to the importing node it names',
      text: 'ASK <slot> <host>:<port>',
    },
    {
      code: 'TRYAGAIN',
      when: 'the slot is migrating and a call names several of its keys, some missing on this node (on the importing node after ASKING: any missing). Every claim, promote and reap meets it for the whole migration, since the row base they declare is never a key; a cluster client sends the call again after a delay',
      text: 'TRYAGAIN Multiple keys request during rehashing of slot',
    },
    {
      code: 'CLUSTERDOWN',
      when: 'no node serves the slot of the key',
      text: 'CLUSTERDOWN Hash slot not served',
    },
  ]),

  // The connectors' fences on {emq}:version (FenceError), and the operator's install.
  ...answeredBy(['connector'])([
    {
      code: 'FenceError',
      variant: 'foreign',
      when: 'a connector finds another wire identity at `{emq}:version` (a wire 4 connector on a native node, or the reverse)',
      text: 'the <wire> connector refuses this server: expected wire identity "<identity>" at {emq}:version but found "<found>"',
    },
    {
      code: 'FenceError',
      variant: 'vanished',
      when: 'the wire 4 connector claimed the identity with SET NX but found none when it read it back (it was deleted in between)',
      text: 'the <wire> connector refuses this server: expected wire identity "<identity>" at {emq}:version but found none',
    },
    {
      code: 'FenceError',
      variant: 'not-installed',
      when: 'the wire 6 connector finds no identity installed (it reads and never claims)',
      text: 'the <wire> connector refuses this server: wire identity "<identity>" is not installed at {emq}:version (found none); install it administratively first',
    },
  ]),

  // The explorer's JSON API: `{ "error": { "code", "message" } }`.
  ...answeredBy(['API'])([
    {
      code: 'NOT_FOUND',
      variant: 'api',
      status: 404,
      when: 'a path under /api/ that is not an API',
      text: 'no API at <path>; see GET /api/experiments for what there is',
    },
    {
      code: 'NOT_FOUND',
      variant: 'image',
      status: 404,
      when: 'a path under /_image, Astro’s image endpoint: the front answers it, since this site serves no images that way',
      text: 'this site has no image service',
    },
    {
      code: 'UNKNOWN_EXPERIMENT',
      status: 404,
      when: 'POST /api/experiments/<name> with a name that is not an experiment',
      text: 'no experiment named "<name>"; the experiments are: <names>',
    },
    {
      code: 'METHOD',
      status: 405,
      when: 'a path is asked with a method it does not take (an experiment with another than POST, the catalogue or the status with another than GET or HEAD, any path with TRACE or CONNECT); `allow` lists those it takes',
      text: '<method> is not served here: <what it takes>',
    },
    {
      code: 'BAD_PATH',
      variant: 'escape',
      status: 400,
      when: 'a request path holds a % that is not a UTF-8 escape (every path is read once, decoded, before the limiter and the router)',
      text: 'the path <path> holds a % that is not a valid UTF-8 escape',
    },
    {
      code: 'BAD_PATH',
      variant: 'depth',
      status: 400,
      when: 'a request path is percent-encoded more than 3 times over',
      text: 'the path <path> is percent-encoded more than 3 times over',
    },
    {
      code: 'BAD_PATH',
      variant: 'target',
      status: 400,
      when: 'a request target is not a path (an absolute URL, or *)',
      text: 'the request target must be a path starting with /, not <target>',
    },
    {
      code: 'RATE_LIMITED',
      status: 429,
      when: 'a client asked more than its budget allows (runs, reads of the catalogue and status checks each have their own); `retry-after` says when to come back, and the connection closes with it',
      text: 'too many requests from you; try again in <seconds> s',
    },
    {
      code: 'CONTENT_TYPE',
      status: 415,
      when: 'the body is not sent as application/json',
      text: 'send the input as application/json, not "<type>"',
    },
    {
      code: 'TOO_LARGE',
      status: 413,
      when: 'the body is over the limit',
      text: 'the body is over <bytes> bytes',
    },
    {
      code: 'BAD_JSON',
      status: 400,
      when: 'the body is not JSON, or not UTF-8',
      text: 'cannot read the body: <why>',
    },
    {
      code: 'BAD_INPUT',
      status: 400,
      when: 'a field is missing, unknown, of the wrong kind or over its limit; `error.field` names it',
      text: '<what was wrong and what is allowed>',
    },
    {
      code: 'BUSY',
      variant: 'pool',
      status: 503,
      when: 'every leased keyspace of the sandbox is in use',
      text: 'every sandbox keyspace is in use; waited <ms> ms. Try again in a moment.',
    },
    {
      code: 'BUSY',
      variant: 'cluster',
      status: 503,
      when: 'every cluster client the sandbox keeps for runs (32) is in use',
      text: 'every cluster client of the sandbox is in use; waited <ms> ms. Try again in a moment.',
    },
    {
      code: 'BUSY',
      variant: 'lock',
      status: 503,
      when: 'another run holds the slot this run needs (runs on one slot take turns), or another slot migration runs (one at a time in the whole sandbox)',
      text: '<lock> is busy with other runs; waited <ms> ms. Try again in a moment.',
    },
    {
      code: 'BUSY',
      variant: 'line',
      status: 503,
      when: 'the reshards waiting in line before this one would take, at the pace of the last turns, longer than a reshard waits (10 s): refused at once, before it takes a ticket',
      text: '<lock> has <ahead> runs in line before this one, about <ms> ms of turns, longer than the <wait> ms a run waits. Try again in a moment.',
    },
    {
      code: 'RESHARD_QUEUED',
      status: 429,
      when: 'a reshard from a reader address that already has one queued or running (one at a time per address, either mode, across every site process); `retry-after` says when to come back',
      text: 'a reshard from you is already queued or running (one at a time for each reader); try again in <seconds> s',
    },
    {
      code: 'RESHARD_FAILED',
      variant: 'repaired',
      status: 503,
      when: 'a slot move failed part-way; before answering, the site finished or undid it (one owner, nothing open)',
      text: 'the move of slot <slot> did not finish (<why>); the slot was put right (one owner, nothing open). Try again in a moment.',
    },
    {
      code: 'RESHARD_FAILED',
      variant: 'unrepaired',
      status: 503,
      when: 'a slot move failed part-way and the repair that followed could not put the slot right',
      text: 'the move of slot <slot> did not finish (<why>); the cluster still needs repair: <what is left>. Try again in a moment.',
    },
    {
      code: 'RESHARD_IMPOSSIBLE',
      status: 409,
      when: 'the cluster has a single primary, so a slot has no other node to move to',
      text: 'slot <slot> cannot move: the cluster has one primary (<node>), and a slot moves from one primary to another; a reshard needs at least two',
    },
    {
      code: 'SANDBOX_DEGRADED',
      status: 503,
      when: 'the cluster’s nodes disagree about a slot, or a slot is left open, and the repair could not fix it yet',
      text: 'the sandbox cluster is degraded: <what is wrong>',
    },
    {
      code: 'SANDBOX_DOWN',
      status: 503,
      when: 'the sandbox Valkey does not answer (it restarts by itself)',
      text: 'the sandbox Valkey is not answering right now; it restarts by itself, so try again in a few seconds',
    },
    {
      code: 'SANDBOX_LIMIT',
      variant: 'keyspaces',
      status: 503,
      when: 'the sandbox Valkey has fewer databases than the run needs keyspaces (a run needs one or two)',
      text: 'the sandbox Valkey cannot give this run its keyspace: it has <keyspaces> for runs and this run needs <count>',
    },
    {
      code: 'SANDBOX_LIMIT',
      variant: 'refused',
      status: 503,
      when: 'the sandbox Valkey refused to enter a run’s database or to run the lease script (its leases were given back)',
      text: 'the sandbox Valkey cannot give this run its keyspace: <command> was refused (<reply>)',
    },
    // One row for each kind of run: what was let go, and how, differs, and each text is true of its kind.
    {
      code: 'TIMEOUT',
      variant: 'keyspace',
      status: 503,
      when: 'a run on keyspaces leased for it passed its deadline: its connections were cut and its keyspaces flushed',
      text: 'the run took over <seconds> s and was ended; its keyspace was flushed',
    },
    {
      code: 'TIMEOUT',
      variant: 'leased',
      status: 503,
      when: 'a run that leases keyspaces (keys, layout, reserve, two-executors, the console on standalone) was not answered within the API’s bound, perhaps still waiting for a keyspace',
      text: 'the run took over <seconds> s and was ended; any keyspace it leased is flushed before another run gets it, and it wrote nothing on the cluster',
    },
    {
      code: 'TIMEOUT',
      variant: 'queue',
      status: 503,
      when: 'a run on the cluster that writes its queue there (route) passed the API’s bound',
      text: 'the run took over <seconds> s and was ended; its slot’s turn is given back, and its queue’s keys on the cluster are deleted in a turn of their own',
    },
    {
      code: 'TIMEOUT',
      variant: 'reads',
      status: 503,
      when: 'a run that only reads the cluster (slot, the console on cluster) passed the API’s bound',
      text: 'the run took over <seconds> s and was ended; it wrote nothing on the cluster, and any slot’s turn it held or waited for is given back',
    },
    {
      code: 'TIMEOUT',
      variant: 'reshard',
      status: 503,
      when: 'a reshard passed the API’s bound: a slot move is never cut part-way',
      text: 'the run took over <seconds> s and was ended; a slot move it started is not cut part-way: it finishes, or fails and is repaired, under its own deadlines',
    },
    {
      code: 'TIMEOUT',
      variant: 'run',
      status: 503,
      when: 'a run of no kind above passed the API’s bound (none of the published experiments)',
      text: 'the run took over <seconds> s and was ended',
    },
    {
      code: 'VALKEY9_BUILDING',
      status: 503,
      when: 'the reshard experiment’s atomic mode was asked for while Valkey 9.1 is still being built (scripts/valkey9.sh)',
      text: 'Valkey 9.1 is being built (scripts/valkey9.sh); try again in a minute',
    },
    {
      code: 'VALKEY9_STARTING',
      status: 503,
      when: 'the reshard experiment’s atomic mode was asked for while the Valkey 9.1 cluster is still starting',
      text: 'the Valkey 9.1 cluster is starting; try again in a few seconds',
    },
    {
      code: 'VALKEY9_UNAVAILABLE',
      status: 503,
      when: 'the reshard experiment’s atomic mode was asked for where Valkey 9.1 is not built or its cluster did not start',
      text: 'Valkey 9.1 is not available: <why>',
    },
    {
      code: 'SANDBOX_BUSY',
      status: 503,
      when: 'the sandbox Valkey answered BUSY, LOADING or MASTERDOWN',
      text: 'the sandbox Valkey is busy (<reply>); try again in a few seconds',
    },
    {
      code: 'SANDBOX_FULL',
      status: 503,
      when: 'the sandbox Valkey answered OOM (it has a memory cap)',
      text: 'the sandbox Valkey is out of memory for now; try again in a few seconds',
    },
    {
      code: 'OVERLOADED',
      status: 503,
      when: 'this site ran out of file descriptors or buffers for new connections',
      text: 'this site is at its connection limit right now; try again in a few seconds',
    },
    // The console's answer for one line it will not send (the request itself is a 200; the other lines run).
    {
      code: 'NOT_ALLOWED',
      when: 'a console line names a command outside the console’s allow-list; the line reaches no server',
      text: '<command> is not allowed in the console (<why>). Allowed: <the names the console runs>',
    },
    {
      code: 'KEY_NOT_ALLOWED',
      when: 'a console read names a key outside `emq:` and `{emq}:`, or a write a key outside the grammar',
      text: '<command>: "<key>" is not a key the console <reads or writes>: <what it takes, with an example>',
    },
    {
      code: 'BAD_ARGUMENTS',
      when: 'a console line’s arguments are of the wrong number or over a cap (SCAN COUNT, pairs, keys, identity bytes), or its numkeys is not a number as the server reads one (`+2`, `02`, `2.0`…)',
      text: '<command>: <what was wrong and what is allowed>',
    },
    {
      code: 'BAD_QUOTING',
      when: 'a console line’s quotes do not close (redis-cli quoting); that line reaches no server and the other lines run',
      text: '<command>: <where the quoting broke>, so the line was not split (redis-cli quoting: "…" or \'…\', closed and followed by a space); the other lines run',
    },
    {
      code: 'INTERNAL',
      variant: 'run',
      status: 500,
      when: 'the experiment failed on the server; the error is logged there and no stack trace is sent',
      text: 'the experiment failed on the server; the error was logged there',
    },
    {
      code: 'INTERNAL',
      variant: 'front',
      status: 500,
      when: 'a page or an API call failed in a way the route itself did not answer; the error is logged and no stack trace is sent',
      text: 'the server failed; it was logged',
    },
  ]),
] as const satisfies readonly ErrorCode[];

/** The catalogue as published (GET /api/experiments, llms-full.txt). */
export const ERROR_CODES: readonly ErrorCode[] = ROWS;

type Row = (typeof ROWS)[number];
/** Every code of the catalogue: a failure built from a code that is not here does not compile. */
export type Code = Row['code'];
/** The codes the API answers with an HTTP status of their own. */
export type StatusCode = Extract<Row, { status: number }>['code'];
/** The variants of a code's rows (never, for a code with one row). */
export type VariantOf<C extends Code> = Extract<Row, { code: C; variant: string }>['variant'];
