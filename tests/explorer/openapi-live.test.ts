// The OpenAPI document against the live API: the site serves the generated document, linked from the
// catalogue; a live answer of every experiment (its example, run on real Valkey servers), the sandbox's
// status and the catalogue pass their schemas under ajv; and every refusal met on the way is problem
// details that pass the schema of its code, sent as application/problem+json.

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { EXPERIMENT_NAMES, rowOf } from '../../server/contract/experiment-table.ts';
import { siteUrlFrom } from '../../src/lib/site-url.ts';
import { openapiDocument } from '../../scripts/openapi.ts';
import { useExplorer } from '../support/explorer.ts';
import { schemaValidator, type OpenApi } from '../support/openapi.ts';

// Not about the rate limit (tests/front/ is): lifted, as in the other explorer tests.
const explorer = useExplorer({ EXPLORER_BURST: '1000', EXPLORER_RATE: '1000' });

let served: OpenApi;
let schemas: ReturnType<typeof schemaValidator>;
// Generated as the file loads, before any connection to the site is open: it holds this process for
// seconds, past the idle limit of a kept-alive connection, which a later fetch would then find closed.
const expected = JSON.parse(JSON.stringify(openapiDocument({ siteUrl: siteUrlFrom(process.env) })));

/** The schema of `status`'s answer to `method path`, as the document gives it. */
function answerSchema(path: string, method: string, status: number, type: string): object {
  const responses = served.paths[path]![method].responses;
  let response = responses[String(status)];
  assert.ok(response, `${method.toUpperCase()} ${path} documents ${status}`);
  if (response.$ref) response = served.components.responses[response.$ref.split('/').pop()];
  const schema = response.content[type]?.schema;
  assert.ok(schema, `${method.toUpperCase()} ${path} ${status} documents ${type}`);
  return schema;
}

function holds(schema: string | object, value: unknown, what: string) {
  const { valid, errors } = schemas.validate(schema, value);
  assert.ok(valid, `${what}:\n${errors}`);
}

async function ask(path: string, init: RequestInit = {}) {
  const response = await fetch(explorer.site.url + path, init);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
}

const post = (name: string, body: string, type = 'application/json') =>
  ask(`/api/experiments/${name}`, { method: 'POST', headers: { 'content-type': type }, body });

describe('the OpenAPI document served', () => {
  before(async () => {
    const answer = await ask('/api/openapi.json');
    assert.equal(answer.status, 200);
    assert.equal(answer.type, 'application/json; charset=utf-8');
    served = answer.body;
    schemas = schemaValidator(served);
  });

  it('is the one generated from the sources, linked from the catalogue, which passes its schema', async () => {
    assert.deepEqual(served, expected);
    const catalogue = await ask('/api/experiments');
    assert.equal(catalogue.body.openapi, '/api/openapi.json');
    holds(answerSchema('/api/experiments', 'get', 200, 'application/json'), catalogue.body, 'the catalogue');
  });

  it('holds a live answer of every experiment, run with its example, to its schema', async () => {
    for (const name of EXPERIMENT_NAMES) {
      const answer = await post(name, JSON.stringify(rowOf(name).example));
      assert.equal(answer.status, 200, `${name}: ${answer.status} ${answer.body.code} ${answer.body.detail}`);
      assert.equal(answer.type, 'application/json; charset=utf-8');
      holds(answerSchema(`/api/experiments/${name}`, 'post', 200, 'application/json'), answer.body, name);
    }
  });

  it('holds the other shapes of a result too: a refused queue, a key’s slot', async () => {
    const refused = await post('keys', JSON.stringify({ queue: 'a{b' }));
    assert.equal(refused.body.result.accepted, false);
    holds(
      answerSchema('/api/experiments/keys', 'post', 200, 'application/json'),
      refused.body,
      'keys refused',
    );
    const key = await post('slot', JSON.stringify({ key: '123456789' }));
    assert.equal(key.body.result.key.slot, 12739);
    holds(answerSchema('/api/experiments/slot', 'post', 200, 'application/json'), key.body, 'slot of a key');
  });

  it('holds the sandbox’s status to its schema', async () => {
    const status = await ask('/api/sandbox');
    assert.equal(status.status, 200);
    holds(answerSchema('/api/sandbox', 'get', 200, 'application/json'), status.body, 'GET /api/sandbox');
  });

  it('holds every refusal met to its code’s schema, as application/problem+json', async () => {
    const keys = ['/api/experiments/keys', 'post'] as const;
    const refusals = [
      { code: 'BAD_INPUT', operation: keys, answer: await post('keys', '{"queue":7}') },
      { code: 'BAD_JSON', operation: keys, answer: await post('keys', '{') },
      { code: 'CONTENT_TYPE', operation: keys, answer: await post('keys', '{}', 'text/plain') },
      { code: 'TOO_LARGE', operation: keys, answer: await post('keys', 'x'.repeat(5000)) },
      { code: 'METHOD', operation: keys, answer: await ask('/api/experiments/keys') },
      {
        code: 'METHOD',
        operation: ['/api/openapi.json', 'get'] as const,
        answer: await ask('/api/openapi.json', { method: 'DELETE' }),
      },
      { code: 'UNKNOWN_EXPERIMENT', answer: await post('nope', '{}') },
      { code: 'NOT_FOUND', answer: await ask('/api/nothing') },
    ];
    for (const { code, operation, answer } of refusals) {
      assert.equal(answer.type, 'application/problem+json; charset=utf-8', code);
      assert.equal(answer.body.code, code);
      assert.equal(answer.body.status, answer.status, code);
      holds(`Problem_${code}`, answer.body, `${code} as answered`);
      // where the operation is in the document, it documents this status, and the body passes it
      if (operation) {
        const schema = answerSchema(operation[0], operation[1], answer.status, 'application/problem+json');
        holds(schema, answer.body, `${code} by its operation`);
      }
    }
    assert.equal(refusals[0]!.answer.body.field, 'queue');
  });
});
