// The floor (ratio-floor.ts starts it as its own process): a bare node:http server that answers an
// experiment's POST with what our site's run of the same input sends Valkey and the reader, and nothing
// more — no routing table, no parsing into types, no recorder, no JSON built. Per POST it reads and
// parses the body, sends the run's captured writes again over iovalkey on as many round trips (writes
// that went out together go out together), and answers the run's JSON, compressed by our front's own
// sendWhole. What it keeps of the site: a keyspace per run, leased and flushed by the same scripts (its
// database and token put in), so runs never share one.
// Run by ratio-floor.ts: FLOOR_TRACES=<file> FLOOR_VALKEY_URL=<admin url> FLOOR_EXPLORER_PASSWORD=<…>

import { createServer, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Valkey } from 'iovalkey';
import { sendWhole } from '../server/front/compress.ts';
import { EXPLORER_USER } from '../server/explorer/explorer-user.ts';
import { leaseKey } from '../server/explorer/keyspace-pool.ts';
import { luaScript } from '../server/lua/lua-file.ts';
import { MAX_KEYSPACES } from '../server/settings/bounds.ts';
import type { Trace, Traces, TracedWrite } from './floor-capture.ts';

const traces = JSON.parse(readFileSync(process.env.FLOOR_TRACES!, 'utf8')) as Traces;
const admin = new URL(process.env.FLOOR_VALKEY_URL!);
const explorerPassword = process.env.FLOOR_EXPLORER_PASSWORD!;
/** The token of the captured runs' leases and locks: each replayed run puts a fresh one in its place. */
const capturedToken = process.env.FLOOR_CAPTURED_TOKEN!;

const LEASE_LUA = join(import.meta.dirname, '..', 'server', 'explorer', 'lua');
const TAKE = luaScript(LEASE_LUA, 'lease-take-n.lua').sha;
const GIVE = luaScript(LEASE_LUA, 'lease-give-n.lua').sha;
const DATABASES = Array.from({ length: MAX_KEYSPACES }, (_, i) => i + 1);

/** One connection per `<port>|<user>|<database>` a trace names, opened as the site opens its own. */
const connections = new Map<string, Valkey>();

async function open(key: string): Promise<Valkey> {
  const [port, user, db] = key.split('|');
  // A leased database's connection enters it as the admin and then becomes the explorer, as the pool's
  // do; a cluster node's explorer connection signs in as the explorer; the rest are the admin's.
  const leased = user === EXPLORER_USER && db !== '0';
  const credentials =
    user === EXPLORER_USER && !leased
      ? { username: user, password: explorerPassword }
      : { username: decodeURIComponent(admin.username), password: decodeURIComponent(admin.password) };
  const client = new Valkey({
    host: admin.hostname,
    port: Number(port),
    ...credentials,
    db: Number(db),
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
  });
  if (leased) await client.call('AUTH', EXPLORER_USER, explorerPassword);
  return client;
}

/** Every connection any trace names, a standalone explorer's on every database a lease may give. */
async function openAll(): Promise<void> {
  const keys = new Set<string>();
  for (const bodies of Object.values(traces))
    for (const trace of Object.values(bodies))
      for (const { connection } of trace.writes) {
        const [port, user, db] = connection.split('|');
        if (user === EXPLORER_USER && db !== '0') for (const d of DATABASES) keys.add(`${port}|${user}|${d}`);
        else keys.add(connection);
      }
  await Promise.all([...keys].map(async (key) => connections.set(key, await open(key))));
}

/** Databases free to lease in this process: a run waits for its count, as the site's runs wait in line. */
let free = DATABASES.length;
const waiting: Array<() => void> = [];

async function reserve(count: number): Promise<void> {
  while (free < count) await new Promise<void>((resolve) => waiting.push(resolve));
  free -= count;
}

function release(count: number): void {
  free += count;
  for (const wake of waiting.splice(0)) wake();
}

let runs = 0;

/** A captured write's commands with this run's token and databases put in. */
function commandsOf(write: TracedWrite, token: string, dbs: Map<string, string>): string[][] {
  return write.commands.map(([name = '', ...args]) => {
    if (name === 'EVALSHA' && args[0] === GIVE) {
      const given = args.slice(-Number(args[1])).map((db) => dbs.get(db)!);
      return [name, GIVE, String(given.length), ...given.map((db) => leaseKey(Number(db))), token, ...given];
    }
    const replayed = [name, ...args.map((arg) => (arg.startsWith(capturedToken) ? token : arg))];
    // A take's asker (its ARGV[4], after token, ttl and count) is the floor's one process, as the
    // captured runs' was one process's: not one per replayed run.
    if (name === 'EVALSHA' && args[0] === TAKE) replayed[3 + Number(args[1]) + 3] = `${capturedToken}floor`;
    return replayed;
  });
}

/** Sends one wave of writes (those that went out together), each on its connection, and waits for every reply. */
async function sendWave(wave: TracedWrite[], token: string, dbs: Map<string, string>): Promise<unknown[]> {
  const replies: Array<Promise<unknown>> = [];
  for (const write of wave) {
    const [port, user, db] = write.connection.split('|');
    const client = connections.get(`${port}|${user}|${dbs.get(db!) ?? db}`)!;
    client.stream.cork();
    for (const [name, ...args] of commandsOf(write, token, dbs))
      replies.push(client.call(name!, ...args).catch((error: Error) => error));
    client.stream.uncork();
  }
  return Promise.all(replies);
}

/** A lease take in a wave: which of the wave's replies it is, and the databases it offered, in order. */
interface Take {
  reply: number;
  order: string[];
}

/** A trace made ready to send, once at start rather than per POST: its waves, and the take in each. */
interface Plan {
  waves: Array<{ writes: TracedWrite[]; take: Take | null }>;
  /** The databases the captured run leased (its give's last arguments), in the order it gave them. */
  captured: string[];
}

function planOf(trace: Trace): Plan {
  const waves: Plan['waves'] = [];
  for (let at = 0; at < trace.writes.length;) {
    let end = at + 1;
    while (end < trace.writes.length && trace.writes[end]!.after === trace.writes[at]!.after) end += 1;
    const writes = trace.writes.slice(at, end);
    const commands = writes.flatMap((w) => w.commands);
    const reply = commands.findIndex(([name, sha]) => name === 'EVALSHA' && sha === TAKE);
    // The databases a take tried, in order: its last arguments, one per lease key (all its keys but the asks).
    const take = reply < 0 ? null : { reply, order: commands[reply]!.slice(1 - Number(commands[reply]![2])) };
    waves.push({ writes, take });
    at = end;
  }
  const give = trace.writes
    .flatMap((w) => w.commands)
    .find(([name, sha]) => name === 'EVALSHA' && sha === GIVE);
  return { waves, captured: give ? give.slice(-Number(give[2])) : [] };
}

/**
 * One run again: its waves in order; the lease's take answers which databases this run writes in.
 * Answers how many commands the server refused, which must be as many as in the captured run (else
 * the floor would not be doing the same work).
 */
async function replay({ waves, captured }: Plan): Promise<number> {
  const token = `${capturedToken}floor:${(runs += 1)}`;
  await reserve(captured.length);
  try {
    const dbs = new Map<string, string>();
    let refused = 0;
    for (const { writes, take } of waves) {
      const replies = await sendWave(writes, token, dbs);
      refused += replies.filter((reply) => reply instanceof Error).length;
      if (take) {
        const got = replies[take.reply] as number[];
        captured.forEach((db, i) => dbs.set(db, take.order[got[i]! - 1]!));
      }
    }
    return refused;
  } finally {
    release(captured.length);
  }
}

function body(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}

await openAll();
const plans = new Map<Trace, Plan>();
for (const bodies of Object.values(traces))
  for (const trace of Object.values(bodies)) plans.set(trace, planOf(trace));
const server = createServer(async (request, response) => {
  const text = await body(request);
  JSON.parse(text); // as any JSON API reads its input
  const trace = traces[request.url!.slice('/api/experiments/'.length)]?.[text];
  if (!trace) {
    response.writeHead(404).end();
    return;
  }
  const refused = await replay(plans.get(trace)!);
  if (refused !== trace.refused) {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { code: `REFUSED_${refused}_NOT_${trace.refused}` } }));
    return;
  }
  const headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  sendWhole(request, response, 200, headers, Buffer.from(trace.answer));
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(typeof address === 'object' && address ? address.port : '');
});
// Ended by the bench: exit as a normal end, so a --cpu-prof of the floor is written.
process.once('SIGTERM', () => process.exit(0));
