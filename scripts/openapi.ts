// The OpenAPI 3.1 document of the JSON API (served as GET /api/openapi.json), generated, never written by
// hand: its paths from the route table (server/api/routes.ts) and the one table of experiments (each
// experiment's summary, example, body and result), its schemas from the contract's types
// (openapi-schemas.ts) with the bounds of limits.ts (server/contract/input-bounds.ts), and its refusals
// from the error catalogue: one response per code, the `type` every refusal links to.
// The build writes it to dist/openapi.json (astro.config.mjs); run by hand, it prints it:
//   node scripts/openapi.ts

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, type StatusCode } from '../server/contract/catalogue/error-codes.ts';
import { OPENAPI_PATH, PROBLEM_MEDIA_TYPE, problemType } from '../server/contract/catalogue/problem.ts';
import { problemTitle } from '../server/contract/catalogue/problem-titles.ts';
import { EXPERIMENT_NAMES, rowOf, type ExperimentName } from '../server/contract/experiment-table.ts';
import { INPUT_BOUNDS, type Bound } from '../server/contract/input-bounds.ts';
import { API_ROUTES } from '../server/api/routes.ts';
import { projectRoot } from '../server/project-root.ts';
import { generateSchemas, type Schema } from './openapi-schemas.ts';

/** The health endpoints the ops lane's front answers, plain text, outside /api/. */
export const HEALTH_PATHS = {
  '/livez': 'Whether this site process is alive: 200 while it serves, whatever the sandbox.',
  '/readyz':
    'Whether this site process is ready for readers: 200 when it can run experiments, 503 while it cannot (the sandbox down or still starting).',
} as const;

/** The codes a run can end in, besides those of reading its request: every API code but the two 404s. */
const NOT_A_RUN: readonly StatusCode[] = ['NOT_FOUND', 'UNKNOWN_EXPERIMENT'];
/** The codes only some experiments answer: a slot move's, and the Valkey 9.1 cluster's (its atomic mode). */
const ONLY_FOR: Partial<Record<StatusCode, readonly ExperimentName[]>> = {
  RESHARD_QUEUED: ['reshard'],
  RESHARD_FAILED: ['reshard'],
  RESHARD_IMPOSSIBLE: ['reshard'],
  VALKEY9_BUILDING: ['reshard'],
  VALKEY9_STARTING: ['reshard'],
  VALKEY9_UNAVAILABLE: ['reshard'],
};
/** The refusals of any route, before it is routed: the path unreadable, a method it does not take, a bug. */
const ANY_ROUTE: readonly StatusCode[] = ['BAD_PATH', 'METHOD', 'INTERNAL'];

function statusCodes(): StatusCode[] {
  return [
    ...new Set(ERROR_CODES.filter((row) => row.status !== undefined).map((row) => row.code)),
  ] as StatusCode[];
}

function statusOfCode(code: StatusCode): number {
  return ERROR_CODES.find((row) => row.code === code && row.status !== undefined)!.status!;
}

const titleOf = (code: StatusCode) => problemTitle(code, statusOfCode(code));

/** A component name for the problem of one code. */
const problemSchemaName = (code: string) => `Problem_${code}`;

/** components.responses.<code>: the code's title, when it is answered, its problem's schema and an example. */
function codeResponse(code: StatusCode): Schema {
  const rows = ERROR_CODES.filter((row) => row.code === code && row.status !== undefined);
  const when = rows.map((row) => `- ${row.variant ? `(${row.variant}) ` : ''}${row.when}: "${row.text}"`);
  const status = statusOfCode(code);
  return {
    description: `${titleOf(code)} (${status}). ${code} is answered when:\n${when.join('\n')}`,
    ...retryAfter(status),
    content: {
      [PROBLEM_MEDIA_TYPE]: {
        schema: { $ref: `#/components/schemas/${problemSchemaName(code)}` },
        example: {
          type: problemType(code),
          title: titleOf(code),
          status,
          detail: rows[0]!.text,
          code,
          error: { code, message: rows[0]!.text },
        },
      },
    },
  };
}

/** One status's response of an operation: the codes it may be, each by its own schema. */
function statusResponse(codes: readonly StatusCode[]): Schema {
  if (codes.length === 1) return { $ref: `#/components/responses/${codes[0]}` };
  return {
    ...retryAfter(statusOfCode(codes[0]!)),
    description: `One of: ${codes.map((code) => `${code} (${titleOf(code)})`).join('; ')}. Each is described under components.responses.`,
    content: {
      [PROBLEM_MEDIA_TYPE]: {
        schema: { oneOf: codes.map((code) => ({ $ref: `#/components/schemas/${problemSchemaName(code)}` })) },
      },
    },
  };
}

/** An operation's refusals by status, from the codes it may answer. */
function refusals(codes: readonly StatusCode[]): Record<string, Schema> {
  const byStatus = new Map<number, StatusCode[]>();
  for (const code of codes)
    byStatus.set(statusOfCode(code), [...(byStatus.get(statusOfCode(code)) ?? []), code]);
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [String(status), statusResponse(list)]),
  );
}

/** Every 429 and 503 says, in `retry-after`, when to come back. */
function retryAfter(status: number): Schema {
  return status === 429 || status === 503
    ? { headers: { 'retry-after': { $ref: '#/components/headers/retry-after' } } }
    : {};
}
const RETRY_AFTER = {
  description: 'Seconds to wait before trying again (every 503 and every 429 carries it).',
  schema: { type: 'integer', minimum: 0 },
};

/** The bounds of limits.ts written into an experiment's body schema (a component the body refers to). */
function bounded(schema: Schema, bounds: Record<string, Bound>): Schema {
  const apply = (target: Schema): Schema => {
    if (Array.isArray(target.anyOf)) return { ...target, anyOf: target.anyOf.map((s) => apply(s as Schema)) };
    const properties = target.properties as Record<string, Schema> | undefined;
    if (!properties) return target;
    const out: Record<string, Schema> = {};
    for (const [field, property] of Object.entries(properties)) {
      const bound = bounds[field];
      out[field] = bound ? withBound(property, bound) : property;
    }
    return { ...target, properties: out };
  };
  return apply(schema);
}

function withBound(property: Schema, bound: Bound): Schema {
  const out: Schema = { ...property };
  if (bound.maxBytes !== undefined) {
    out.maxLength = bound.maxBytes;
    out['x-maxBytes'] = bound.maxBytes;
  }
  if (bound.minItems !== undefined) out.minItems = bound.minItems;
  if (bound.maxItems !== undefined) out.maxItems = bound.maxItems;
  if (bound.itemMaxBytes !== undefined) {
    out.items = { ...(out.items as Schema), maxLength: bound.itemMaxBytes, 'x-maxBytes': bound.itemMaxBytes };
  }
  return out;
}

const upperFirst = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const operationName = (name: string) => name.split('-').map(upperFirst).join('');

export interface OpenApiOptions {
  /** The site's public URL (SITE_URL), the document's server when set. */
  siteUrl?: string;
}

export function openapiDocument(options: OpenApiOptions = {}): Schema {
  const generated = generateSchemas();
  const schemas: Record<string, Schema> = { ...generated.components };
  const { version } = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8'));
  const codes = statusCodes();

  // The refusal: the contract's Problem, and one schema per code with its constants.
  // (the contract's Problem and SandboxStatus are components already, by their names)
  const problemCode = (schemas.Problem!.properties as Record<string, Schema>).code!;
  problemCode.enum = codes;
  for (const code of codes) {
    schemas[problemSchemaName(code)] = {
      allOf: [
        { $ref: '#/components/schemas/Problem' },
        {
          type: 'object',
          properties: {
            type: { const: problemType(code) },
            title: { const: titleOf(code) },
            status: { const: statusOfCode(code) },
            code: { const: code },
          },
        },
      ],
    };
  }

  const paths: Record<string, Schema> = {};
  // Every route draws on a budget of the rate limiter (routes.ts): each may answer 429.
  const rateLimited = (route: keyof typeof API_ROUTES): StatusCode[] =>
    API_ROUTES[route].budget ? ['RATE_LIMITED'] : [];

  /**
   * A route read with GET: its 200 (`schema`, said in `description`) and what any route may refuse,
   * 429 included, as every API route draws on a budget.
   */
  const read = (
    route: keyof typeof API_ROUTES,
    operationId: string,
    summary: string,
    description: string,
    schema: Schema,
  ) => ({
    get: {
      operationId,
      summary,
      responses: {
        '200': { description, content: { 'application/json': { schema } } },
        ...refusals([...ANY_ROUTE, ...rateLimited(route)]),
      },
    },
  });

  paths['/api/experiments'] = read(
    'catalogue',
    'listExperiments',
    'The catalogue: every experiment with its input, example and limits, the EMQ.* arities and every error code',
    'The catalogue; `openapi` links this document.',
    generated.catalogue,
  );

  for (const name of EXPERIMENT_NAMES) {
    const row = rowOf(name);
    const { body, result } = generated.experiments[name];
    const bodyName = `${operationName(name)}Body`;
    const resultName = `${operationName(name)}Answer`;
    schemas[bodyName] = bounded(resolve(body, schemas), INPUT_BOUNDS[name as ExperimentName] ?? {});
    schemas[resultName] = {
      type: 'object',
      properties: { experiment: { const: name }, result },
      required: ['experiment', 'result'],
      additionalProperties: false,
    };
    const runCodes = codes.filter(
      (code) => !NOT_A_RUN.includes(code) && (ONLY_FOR[code]?.includes(name) ?? true),
    );
    paths[`/api/experiments/${name}`] = {
      post: {
        operationId: `run${operationName(name)}`,
        summary: row.summary,
        description: `What the result holds: ${row.result}`,
        requestBody: {
          required: false,
          description: `A JSON object (an empty body reads as {}), at most ${row.bodyBytes ?? 'the catalogue’s bodyBytes'} bytes${row.bodyBytes ? '' : ' (limits.bodyBytes)'}. Fields: ${
            Object.entries(row.input)
              .map(([field, says]) => `${field}: ${says}`)
              .join('; ') || 'none'
          }`,
          content: {
            'application/json': {
              schema: { $ref: `#/components/schemas/${bodyName}` },
              example: row.example,
            },
          },
        },
        responses: {
          '200': {
            description: 'The run’s result',
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${resultName}` } } },
          },
          ...refusals(runCodes),
        },
      },
    };
  }

  paths['/api/sandbox'] = read(
    'sandbox',
    'sandboxStatus',
    'Whether the sandbox is up, degraded (with what is wrong) or down, and where Valkey 9.1 stands',
    'The sandbox’s state',
    generated.sandboxStatus,
  );
  // The document too draws on the `reads` budget (routes.ts): it may be answered 429.
  paths[OPENAPI_PATH] = read('openapi', 'openapi', 'This document', 'The OpenAPI 3.1 document of the API', {
    type: 'object',
  });
  for (const [path, summary] of Object.entries(HEALTH_PATHS)) {
    const plain = (description: string) => ({
      description,
      content: { 'text/plain': { schema: { type: 'string' } } },
    });
    paths[path] = {
      get: {
        operationId: path.slice(1),
        summary,
        responses: { '200': plain('Yes'), '503': plain('No, and why') },
      },
    };
  }

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'The owned keyspace: the live explorer’s JSON API',
      version,
      summary: 'Every experiment of the course’s live explorer, run on real Valkey servers.',
      description:
        'Each experiment is a POST with a JSON body; a result is {"experiment", "result"}. Every refusal is problem details (RFC 9457, application/problem+json) whose `type` is its code’s response in this document (components.responses.<code>), with the catalogue’s `code` and the row’s text as `detail`; `error` ({code, message}) is the body before problem details, kept for one round. A string bound (maxLength) counts bytes of UTF-8 on the server (x-maxBytes). Generated from the project’s table of experiments, its contract’s types and its error catalogue.',
    },
    ...(options.siteUrl ? { servers: [{ url: options.siteUrl }] } : {}),
    paths,
    components: {
      schemas,
      responses: Object.fromEntries(codes.map((code) => [code, codeResponse(code)])),
      headers: { 'retry-after': RETRY_AFTER },
    },
  };
}

/** A schema that is a $ref to a component, as that component (a copy, to bound it apart). */
function resolve(schema: Schema, schemas: Record<string, Schema>): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  return structuredClone(schemas[ref.replace('#/components/schemas/', '')]!);
}

if (import.meta.main) {
  process.stdout.write(
    JSON.stringify(openapiDocument({ siteUrl: process.env.SITE_URL || undefined }), null, 2) + '\n',
  );
}

/** The build's step that writes the document beside the site (dist/openapi.json), for the API to serve. */
export function openapiFile(siteUrl: string | undefined) {
  let outDir: URL | undefined;
  return {
    name: 'the-owned-keyspace:openapi',
    hooks: {
      'astro:config:done': ({ config }: { config: { outDir: URL } }) => {
        outDir = config.outDir;
      },
      'astro:build:done': () => {
        const document = openapiDocument({ siteUrl });
        writeFileSync(new URL('openapi.json', outDir), JSON.stringify(document));
      },
    },
  };
}
