/**
 * The live explorer of a part, as its markdown twin says it: each experiment the part runs, as the
 * `curl` call of the JSON API that runs the same thing, with the catalogue's own example body.
 */
import {
  experimentsOf,
  PARTS,
  rowOf,
  type ExperimentName,
  type Part,
} from '../../server/contract/experiment-table.ts';

/**
 * The site's address in a curl line: a shell variable, since a built page or twin cannot know the address
 * it is read at (only `npm start`'s default, which a deployed site is not).
 */
export const SITE = '$SITE';
/** Where `npm start` serves the course, the example value of SITE. */
export const START_ORIGIN = 'http://localhost:4321';

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** One experiment as a `curl` line of the API, with the catalogue's example body. */
export function curlOf(name: ExperimentName): string {
  const body = JSON.stringify(rowOf(name).example);
  return `curl -s ${SITE}/api/experiments/${name} -H 'content-type: application/json' -d ${shellQuote(body)}`;
}

export function explorerMarkdown(part: string): string {
  const names = (PARTS as readonly string[]).includes(part) ? experimentsOf(part as Part) : [];
  return [
    '## Live explorer',
    `On the course page this is a live explorer, run against a sandbox Valkey. Each of its experiments is also a call of the course server's JSON API. Set \`SITE\` to the address of the site that served this file first (\`SITE=${START_ORIGIN}\` under \`npm start\`); then each line runs as written. A result is \`{"experiment": "<name>", "result": {…}}\`; a refusal is problem details (\`application/problem+json\`: \`type\`, \`title\`, \`status\`, \`detail\`, \`code\`) with a 4xx or 503 — every code is listed under "Error codes" in [/llms-full.txt](/llms-full.txt).`,
    ...names.map(
      (name) => `- \`${name}\`: ${rowOf(name).summary}\n\n  \`\`\`sh\n  ${curlOf(name)}\n  \`\`\``,
    ),
    `The catalogue — every experiment's input fields, limits, error codes and the \`EMQ.*\` arity table — is \`curl -s ${SITE}/api/experiments\`.`,
  ].join('\n\n');
}
