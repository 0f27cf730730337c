/**
 * The machine-readable map of the course, per llmstxt.org, built from the content collection: the
 * format the reference tools read (PyPI `llms-txt`: `parse_llms_file`, and `llms_txt2ctx`, which fetches
 * every link of every section into one context). So its links are absolute when the site's public URL
 * is set (SITE_URL), each resource is linked once, and every link is markdown or JSON, never an HTML
 * page; /llms-full.txt, which repeats every twin, is named in the details, not fetched as a section.
 */
import { onSite } from './site-url.ts';
import { twinOf } from './paths.ts';
import { CONSOLE_LIMITS } from '../../server/contract/limits.ts';
import { EXPERIMENT_NAMES } from '../../server/contract/experiment-table.ts';
import { OPENAPI_PATH } from '../../server/contract/catalogue/problem.ts';

export interface MapPage {
  title: string;
  description: string;
  route: string;
  kind: 'home' | 'module' | 'dive';
}

export function llmsTxt(pages: MapPage[], site?: string | URL): string {
  const at = (path: string) => onSite(site, path);
  const line = (p: MapPage) => `- [${p.title}](${at(twinOf(p.route))}): ${p.description}`;
  const home = pages.find((p) => p.kind === 'home');
  return (
    [
      '# The owned keyspace',
      '> An interactive course on module 01 of the EchoMQ protocol — the keyspace: the braced grammar every key is built to, the cluster slot its hashtag computes, and the reserved base that holds the wire identity.',
      `Every page below is a markdown twin of a page of the course; the code in it is read from the project's own source at build time, and its links point at the other twins. The whole course in one file — every twin in reading order, then the arity of every EMQ.* command and every error code (who answers it — host, script, module, server, connector or API — when, and its exact text) — is [llms-full.txt](${at('/llms-full.txt')}).`,
      'Health and operation: GET /livez answers 200 while the process serves; GET /readyz answers 200 {"ready": true} while it serves runs, 503 {"ready": false, "why": …} while it drains after SIGTERM or its sandbox is down; GET /api/sandbox says the sandbox\'s state (503 when down). Neither health route is rate-limited. The catalogue (GET /api/experiments) carries an ETag per encoding (304 on If-None-Match); hashed assets (/_astro/*) are immutable for a year, pages and twins revalidate by ETag; compression follows Accept-Encoding q-values. Operators: docs/deploy.md in the repository names the systemd unit (deploy/owned-keyspace.service), its environment (deploy/site.env), the Valkey configuration files (deploy/valkey-standalone.conf, deploy/valkey-cluster-node.conf), the nginx block (docs/nginx-site.conf), the JSON access log and the Prometheus metrics on a port of their own (METRICS_PORT), never on the public address.',
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
        `- [The explorer's JSON API](${at('/api/experiments')}): the catalogue of the live experiments (${EXPERIMENT_NAMES.join(', ')}), each with its input, an example and the limits, plus the arity table (commands) and the error codes (errors) as JSON; run one with POST /api/experiments/<name> and a JSON body (each page's twin shows its explorer as curl calls); every result lists the commands that went over the wire (wire) with the server's own counts of them (proof). The console: POST /api/experiments/console with {"lines": ["EMQ.CLAIM 3 emq:{orders}:pending emq:{orders}:active emq:{orders}:job: 30000", …]} runs up to ${CONSOLE_LIMITS.lines} redis-cli lines (${CONSOLE_LIMITS.lineBytes} bytes each) on a fresh keyspace with the native identity installed, or with "node": "cluster" only what writes nothing, on the three-node cluster; only an allow-list runs, anything else is refused by name and reaches no server. Route and reshard: POST /api/experiments/route shows a queue's slot and owner node on the real three-node cluster, the exact MOVED another node answers, and CROSSSLOT for keys without braces; POST /api/experiments/reshard migrates its slot live, phase by phase ({"mode": "keys"} on Valkey 8, with ASK and TRYAGAIN until the owner flips; {"mode": "atomic"} on Valkey 9.1, one CLUSTER MIGRATESLOTS), with every probe's exact reply and a worker's claims throughout. A refusal is problem details (application/problem+json: type, title, status, detail, code)`,
        `- [The API's OpenAPI 3.1 document](${at(OPENAPI_PATH)}): generated from the same table and the contract's types — every experiment's body (with its limits: maxLength, maxItems) and result as JSON Schema, every refusal by its code and status, GET /api/sandbox, and the health endpoints /livez and /readyz`,
      ].join('\n'),
    ].join('\n\n') + '\n'
  );
}
