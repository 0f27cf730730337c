// The OpenAPI document, generated from the table of experiments, the contract's types and the error
// catalogue: a real OpenAPI 3.1 validator accepts it; every example in it, and every experiment's example
// body, passes its schema under ajv (JSON Schema 2020-12); every bound of limits.ts is in the schema and
// is the parser's own (at the bound nothing is refused for its size, one past it is, by both); every
// code of the catalogue has its response. (tests/explorer/openapi-live.test.ts: the site serves it, and
// every live answer passes it.)

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ERROR_CODES, type StatusCode } from '../../server/contract/catalogue/error-codes.ts';
import { problemTitle } from '../../server/contract/catalogue/problem-titles.ts';
import { statusOf } from '../../server/contract/catalogue/catalogue-text.ts';
import { EXPERIMENT_NAMES, rowOf } from '../../server/contract/experiment-table.ts';
import { INPUT_BOUNDS } from '../../server/contract/input-bounds.ts';
import { EXPERIMENTS } from '../../server/api/registry.ts';
import { refusal } from '../../server/api/answer.ts';
import { InputError } from '../../server/input/fields.ts';
import { openapiDocument } from '../../scripts/openapi.ts';
import { schemaValidator, type OpenApi } from '../support/openapi.ts';

let document: OpenApi;
let schemas: ReturnType<typeof schemaValidator>;

before(() => {
  document = openapiDocument() as OpenApi;
  schemas = schemaValidator(document);
});

const nameOf = (experiment: string) =>
  experiment
    .split('-')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 by a maintained validator', async () => {
    assert.equal(document.openapi, '3.1.0');
    const result = await new Validator().validate(structuredClone(document));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it('has a path for every experiment, the catalogue, the status, itself and the health endpoints', () => {
    const paths = Object.keys(document.paths);
    for (const name of EXPERIMENT_NAMES) assert.ok(document.paths[`/api/experiments/${name}`]?.post, name);
    for (const path of ['/api/experiments', '/api/sandbox', '/api/openapi.json', '/livez', '/readyz'])
      assert.ok(paths.includes(path), path);
    for (const health of ['/livez', '/readyz']) {
      const { responses } = document.paths[health]!.get;
      assert.deepEqual(Object.keys(responses), ['200', '503']);
      assert.ok(responses['503'].content['text/plain'], `${health} is plain text`);
    }
  });

  it('documents for each experiment the refusals it can meet: a slot move’s and Valkey 9.1’s for reshard alone', () => {
    const responses = (name: string) => document.paths[`/api/experiments/${name}`]!.post.responses;
    assert.equal(responses('keys')['429'].$ref, '#/components/responses/RATE_LIMITED');
    assert.match(responses('reshard')['429'].description, /RATE_LIMITED .*RESHARD_QUEUED/);
    assert.match(responses('reshard')['503'].description, /VALKEY9_BUILDING/);
    assert.doesNotMatch(responses('keys')['503'].description, /VALKEY9|RESHARD/);
    for (const name of EXPERIMENT_NAMES)
      for (const status of ['400', '405', '413', '415', '429', '500', '503'])
        assert.ok(responses(name)[status], `${name} documents ${status}`);
  });

  it('passes every experiment’s example body through its schema, and the parser takes it too', () => {
    for (const name of EXPERIMENT_NAMES) {
      const operation = document.paths[`/api/experiments/${name}`]!.post;
      const { example } = operation.requestBody.content['application/json'];
      assert.deepEqual(example, rowOf(name).example, name);
      const { valid, errors } = schemas.validate(`${nameOf(name)}Body`, example);
      assert.ok(valid, `${name}: ${errors}`);
      EXPERIMENTS[name].parse(example);
    }
  });

  it('refuses a body the parser refuses by its shape: an unknown field, a wrong kind', () => {
    for (const name of EXPERIMENT_NAMES) {
      const unknown = schemas.validate(`${nameOf(name)}Body`, {
        ...(rowOf(name).example as object),
        nope: 1,
      });
      assert.equal(unknown.valid, false, `${name} takes no field "nope"`);
      assert.throws(
        () => EXPERIMENTS[name].parse({ ...(rowOf(name).example as object), nope: 1 }),
        InputError,
      );
    }
    assert.equal(schemas.validate('KeysBody', { queue: 7 }).valid, false);
    assert.equal(schemas.validate('ReshardBody', { size: '1000' }).valid, false);
  });

  it('states every bound of limits.ts, and each is the parser’s: at the bound, and one past', () => {
    let checked = 0;
    for (const name of EXPERIMENT_NAMES) {
      for (const [field, bound] of Object.entries(INPUT_BOUNDS[name] ?? {})) {
        const schemaName = `${nameOf(name)}Body`;
        const base: Record<string, unknown> =
          name === 'slot' && field === 'key' ? {} : { ...(rowOf(name).example as object) };
        delete base[field];
        const item =
          name === 'console' ? 'PING' : name === 'two-executors' ? 'enqueue' : 'emq:{orders}:pending';
        const cases: Array<[string, unknown, unknown]> = [];
        if (bound.maxBytes !== undefined)
          cases.push(['bytes', 'q'.repeat(bound.maxBytes), 'q'.repeat(bound.maxBytes + 1)]);
        if (bound.maxItems !== undefined)
          cases.push(['items', Array(bound.maxItems).fill(item), Array(bound.maxItems + 1).fill(item)]);
        if (bound.itemMaxBytes !== undefined)
          cases.push(['item bytes', ['q'.repeat(bound.itemMaxBytes)], ['q'.repeat(bound.itemMaxBytes + 1)]]);
        if (bound.minItems !== undefined) cases.push(['at least', Array(bound.minItems).fill(item), []]);
        for (const [what, at, past] of cases) {
          const where = `${name}.${field} (${what})`;
          const atBody = { ...base, [field]: at };
          const pastBody = { ...base, [field]: past };
          const atSchema = schemas.validate(schemaName, atBody);
          assert.ok(atSchema.valid, `${where}: the schema takes the bound: ${atSchema.errors}`);
          assert.equal(
            schemas.validate(schemaName, pastBody).valid,
            false,
            `${where}: the schema refuses one past`,
          );
          try {
            EXPERIMENTS[name].parse(atBody);
          } catch (error) {
            // at the bound, a refusal may be about something else (a job id's brand), never the size
            assert.ok(error instanceof InputError, where);
            assert.doesNotMatch(error.message, /at most|at least|needs at least/, where);
          }
          assert.throws(
            () => EXPERIMENTS[name].parse(pastBody),
            (error: unknown) =>
              error instanceof InputError &&
              error.field.startsWith(field) &&
              /at most|at least|needs at least/.test(error.message),
            `${where}: the parser refuses one past`,
          );
          checked += 1;
        }
      }
    }
    assert.ok(checked >= 14, `${checked} bounds checked`);
  });

  it('describes every refusal of the catalogue by its code: status, title and a valid example', () => {
    const codes = [...new Set(ERROR_CODES.filter((row) => row.status !== undefined).map((row) => row.code))];
    assert.deepEqual(Object.keys(document.components.responses).sort(), [...codes].sort());
    for (const code of codes) {
      const response = document.components.responses[code];
      const { schema, example } = response.content['application/problem+json'];
      assert.equal(schema.$ref, `#/components/schemas/Problem_${code}`);
      const { valid, errors } = schemas.validate(`Problem_${code}`, example);
      assert.ok(valid, `${code}'s example: ${errors}`);
      assert.match(
        response.description,
        new RegExp(`^${problemTitle(code as StatusCode, statusOf(code as StatusCode))} \\(`),
      );
    }
  });

  it('titles a code added to the catalogue without a title of its own by its status’s phrase', () => {
    assert.equal(problemTitle('A_NEW_CODE' as StatusCode, 405), 'Method Not Allowed');
    assert.equal(problemTitle('A_NEW_CODE' as StatusCode, 431), 'HTTP 431');
    assert.equal(problemTitle('BAD_INPUT', 400), 'Input refused');
  });

  it('holds a refusal as the API builds it to its code’s schema, and not to another’s', () => {
    const answer = refusal('RATE_LIMITED', { seconds: 3 });
    assert.equal(answer.headers?.['content-type'], 'application/problem+json; charset=utf-8');
    assert.ok(schemas.validate('Problem_RATE_LIMITED', answer.body).valid);
    assert.equal(schemas.validate('Problem_BUSY', answer.body).valid, false);
    // the type every refusal links to is a response of this document
    const type = (answer.body as { type: string }).type;
    const [path, pointer] = type.split('#');
    assert.equal(path, '/api/openapi.json');
    const target = pointer!
      .split('/')
      .slice(1)
      .reduce((node: any, key) => node?.[key], document);
    assert.ok(target?.content, `${type} resolves in the document`);
  });
});
