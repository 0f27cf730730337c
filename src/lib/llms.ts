/** The machine-readable map of the course, per llmstxt.org, built from the content collection. */
import { twinOf } from './paths.ts';
import { CONSOLE_LIMITS } from '../../server/contract/limits.ts';
import { EXPERIMENT_NAMES } from '../../server/contract/experiment-table.ts';

export interface MapPage {
  title: string;
  description: string;
  route: string;
  kind: 'home' | 'module' | 'dive';
}

export function llmsTxt(pages: MapPage[]): string {
  const line = (p: MapPage) => `- [${p.title}](${twinOf(p.route)}): ${p.description}`;
  const home = pages.find((p) => p.kind === 'home');
  return (
    [
      '# The owned keyspace',
      '> An interactive course on module 01 of the EchoMQ protocol — the keyspace: the braced grammar every key is built to, the cluster slot its hashtag computes, and the reserved base that holds the wire identity.',
      "Every page below is a markdown twin of a page of the course; the code in it is read from the project's own source at build time, and its links point at the other twins.",
      '## Course',
      [home, ...pages.filter((p) => p.kind === 'module')]
        .filter((p) => p !== undefined)
        .map(line)
        .join('\n'),
      '## Dives',
      pages
        .filter((p) => p.kind === 'dive')
        .map(line)
        .join('\n'),
      '## Optional',
      [
        '- [The whole course in one file](/llms-full.txt): every page above, as markdown, in reading order, then the reference: the arity of every EMQ.* command and every error code (who answers it — host, script, module, server, connector or API — when, and its exact text)',
        `- [The explorer's JSON API](/api/experiments): the catalogue of the live experiments (${EXPERIMENT_NAMES.join(', ')}), each with its input, an example and the limits, plus the same arity table (commands) and error codes (errors) as JSON; run one with POST /api/experiments/<name> and a JSON body; each page's twin shows its explorer as curl calls; every result lists the commands that went over the wire (wire) with the server's own counts of them (proof)`,
        `- [The console](/api/experiments): POST /api/experiments/console with {"lines": ["EMQ.CLAIM 3 emq:{orders}:pending emq:{orders}:active emq:{orders}:job: 30000", …]} runs up to ${CONSOLE_LIMITS.lines} redis-cli lines (${CONSOLE_LIMITS.lineBytes} bytes each) on a fresh keyspace with the native identity installed: each reply or error (linked to the section that explains it), each key's slot, the wire, the keyspace after; with "node": "cluster", only what writes nothing and names its keys, on the three-node cluster in the turn of those keys' slots (SCAN and DBSIZE refused there: the cluster's keyspace is every reader's), with the node that answered. Only an allow-list runs (EMQ.*, SCRIPT <verb>, reads, bounded writes on keys of the grammar, CLUSTER KEYSLOT, PING, ECHO, TIME); anything else is refused by name and reaches no server`,
        '- [Route and reshard](/api/experiments): on the sandbox\'s real three-node Valkey Cluster (slots 0–5460, 5461–10922, 10923–16383), POST /api/experiments/route with {"queue": "orders"} shows the queue\'s slot and owner node from CLUSTER SHARDS, the exact MOVED another node answers, an enqueue and a claim landing on the owner, the keys without braces scattered (CROSSSLOT), and EMQ.ENQUEUE answered MOVED by a non-owner and EMQWIRE by the owner, writing nothing; POST /api/experiments/reshard (the migration experiment; optional "mode": "keys", the default, and "size": 1000, the default, or 20000 jobs in the queue) fills the queue, then migrates its slot live to another node phase by phase (SETSLOT IMPORTING, MIGRATING, the oldest row moved alone so the queue is split across two nodes, the rest by MIGRATE … KEYS, SETSLOT NODE on every node) and back, answering result.phases[] with each probe\'s command, node and exact reply (ASK only from the migrating owner, MOVED from a node that does not serve the slot, TRYAGAIN for the claim on both sides until the flip), atMs (milliseconds since the move\'s first command, on the server\'s clock) on every phase, command and probe, moveMs, jobCount, and result.worker: a queue\'s worker claiming throughout on an iovalkey Cluster client with iovalkey\'s defaults ({ settings, claims: [{ atMs, node, reply }], longestWaitMs, gaveUp })',
        '- [Health](/livez): GET /livez answers 200 while the process serves; GET /readyz answers 200 {"ready": true} while it serves runs, 503 {"ready": false, "why": …} while it drains after SIGTERM or its sandbox is down; GET /api/sandbox says the sandbox\'s state (503 when down). Neither health route is rate-limited. The catalogue (GET /api/experiments) carries an ETag per encoding (304 on If-None-Match); hashed assets (/_astro/*) are immutable for a year, pages and twins revalidate by ETag; compression follows Accept-Encoding q-values. Operators: docs/deploy.md in the repository names the systemd unit (deploy/owned-keyspace.service), its environment (deploy/site.env), the Valkey configuration files (deploy/valkey-standalone.conf, deploy/valkey-cluster-node.conf), the nginx block (docs/nginx-site.conf), the JSON access log and the Prometheus metrics on a port of their own (METRICS_PORT), never on this address',
        '- [Two ways a slot moves](/protocol/the-owned-keyspace/hashtag-and-slot/#two-ways-a-slot-moves): the reshard experiment in two modes — {"mode": "keys"} (the default) on Valkey 8, key by key, where claim, promote and reap meet TRYAGAIN (and a moved key ASK) until the slot\'s owner flips; {"mode": "atomic"} on a second three-node cluster of Valkey 9.1 (built once from Debian\'s source package by scripts/valkey9.sh), one CLUSTER MIGRATESLOTS with CLUSTER GETSLOTMIGRATIONS states shown as they change, the same calls served by the source throughout and then answered MOVED once — every loaded module must opt in (trafikey does), and while Valkey 9.1 is being built or absent the atomic mode answers 503 saying so',
      ].join('\n'),
    ].join('\n\n') + '\n'
  );
}
