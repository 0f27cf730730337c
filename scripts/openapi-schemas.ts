// The JSON Schemas of the OpenAPI document, generated from the contract's own types by
// ts-json-schema-generator (a maintained TypeScript → JSON Schema generator): each experiment's body and
// result types as the one table of experiments names them (`row<Body, Result>(…)` in
// server/contract/experiment-table.ts, read with the TypeScript compiler), the refusal (Problem), and
// what GET /api/sandbox and GET /api/experiments answer. Then made OpenAPI 3.1's dialect (JSON Schema 2020-12): refs under
// #/components/schemas/, tuples as `prefixItems`.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createGenerator } from 'ts-json-schema-generator';
import ts from 'typescript';
import { EXPERIMENT_NAMES, type ExperimentName } from '../server/contract/experiment-table.ts';
import { projectRoot } from '../server/project-root.ts';

const ROOT = projectRoot();
const TABLE = join(ROOT, 'server/contract/experiment-table.ts');

export type Schema = { [keyword: string]: unknown };

export interface GeneratedSchemas {
  /** Every named type, by its component name. */
  components: Record<string, Schema>;
  /** Each experiment's body and result schema (a $ref to a component, or inline). */
  experiments: Record<ExperimentName, { body: Schema; result: Schema }>;
  problem: Schema;
  sandboxStatus: Schema;
  catalogue: Schema;
}

/** The body and result type arguments of each row of the table, as written (`KeysBody`, `{ text: string }`). */
export function tableTypes(): Record<string, { body: string; result: string }> {
  const source = ts.createSourceFile(TABLE, readFileSync(TABLE, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Record<string, { body: string; result: string }> = {};
  const visit = (node: ts.Node) => {
    if (
      ts.isVariableDeclaration(node) &&
      node.name.getText(source) === 'EXPERIMENT_TABLE' &&
      node.initializer &&
      ts.isObjectLiteralExpression(node.initializer)
    ) {
      for (const property of node.initializer.properties) {
        if (!ts.isPropertyAssignment(property) || !ts.isCallExpression(property.initializer)) continue;
        const [body, result] = property.initializer.typeArguments ?? [];
        if (!body || !result) throw new Error(`the row ${property.name.getText(source)} names no types`);
        const name = ts.isStringLiteral(property.name) ? property.name.text : property.name.getText(source);
        out[name] = { body: body.getText(source), result: result.getText(source) };
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The table's type-only imports, rewritten for a file in `dir`. */
function tableImports(dir: string): string[] {
  const source = ts.createSourceFile(TABLE, readFileSync(TABLE, 'utf8'), ts.ScriptTarget.Latest, true);
  const lines: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !statement.importClause?.isTypeOnly) continue;
    const from = (statement.moduleSpecifier as ts.StringLiteral).text;
    const path = relative(dir, join(dirname(TABLE), from));
    lines.push(
      `import type ${statement.importClause.getText(source).replace(/^type\s+/, '')} from './${path}';`,
    );
  }
  return lines;
}

/** A component name OpenAPI takes (`^[a-zA-Z0-9._-]+$`) for a generated definition's name. */
function componentName(definition: string): string {
  return definition.replace(/[^a-zA-Z0-9._-]+/g, '_').replace(/^_+|_+$/g, '');
}

/** A schema made OpenAPI 3.1's: refs renamed, tuples (`items: [...]`) as `prefixItems`. */
function toOpenApi(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApi);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === '$ref' && typeof value === 'string' && value.startsWith('#/definitions/')) {
      out.$ref = `#/components/schemas/${componentName(decodeURIComponent(value.slice(14)))}`;
    } else if (keyword === 'items' && Array.isArray(value)) {
      out.prefixItems = toOpenApi(value);
    } else if (keyword === 'additionalItems') {
      out.items = toOpenApi(value);
    } else out[keyword] = toOpenApi(value);
  }
  // a tuple of fixed length: no item past the last prefix
  if (out.prefixItems && !('items' in out) && typeof out.maxItems === 'number') out.items = false;
  return out;
}

export function generateSchemas(): GeneratedSchemas {
  const types = tableTypes();
  const missing = EXPERIMENT_NAMES.filter((name) => !types[name]);
  if (missing.length > 0) throw new Error(`no body and result types read for ${missing.join(', ')}`);
  // The entry the generator reads: one type holding every schema the document needs, each by its name.
  const dir = join(ROOT, '.astro', `openapi-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'entry.ts');
  const rows = EXPERIMENT_NAMES.map(
    (name) => `  ${JSON.stringify(name)}: { body: ${types[name]!.body}; result: ${types[name]!.result} };`,
  );
  writeFileSync(
    entry,
    [
      ...tableImports(dir),
      `import type { Problem } from './${relative(dir, join(ROOT, 'server/contract/catalogue/problem.ts'))}';`,
      `import type { Catalogue, SandboxStatus } from './${relative(dir, join(ROOT, 'server/api/api.ts'))}';`,
      'export type OpenApiSchemas = {',
      '  experiments: {',
      ...rows,
      '  };',
      '  problem: Problem;',
      '  sandboxStatus: SandboxStatus;',
      '  catalogue: Catalogue;',
      '};',
      '',
    ].join('\n'),
  );
  try {
    const generated = createGenerator({
      path: entry,
      tsconfig: join(ROOT, 'tsconfig.json'),
      type: 'OpenApiSchemas',
      expose: 'all',
      topRef: false,
      jsDoc: 'extended',
      skipTypeCheck: true,
      additionalProperties: false,
    }).createSchema('OpenApiSchemas');
    const components: Record<string, Schema> = {};
    for (const [name, schema] of Object.entries(generated.definitions ?? {})) {
      if (name === 'OpenApiSchemas') continue;
      components[componentName(name)] = toOpenApi(schema) as Schema;
    }
    const root = toOpenApi(generated) as Schema & { properties: Record<string, Schema> };
    const experiments = root.properties.experiments as { properties: Record<string, Schema> };
    return {
      components,
      experiments: Object.fromEntries(
        EXPERIMENT_NAMES.map((name) => {
          const { body, result } = (experiments.properties[name] as { properties: Record<string, Schema> })
            .properties;
          return [name, { body: body!, result: result! }];
        }),
      ) as GeneratedSchemas['experiments'],
      problem: root.properties.problem!,
      sandboxStatus: root.properties.sandboxStatus!,
      catalogue: root.properties.catalogue!,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
