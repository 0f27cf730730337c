// The OpenAPI document's schemas as a real JSON Schema 2020-12 validator (ajv) reads them: every
// `#/components/schemas/…` ref resolved inside the document, each schema compiled by its name.

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

export type OpenApi = {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, any> };
  [key: string]: unknown;
};

export function schemaValidator(document: OpenApi) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  // The document's own keywords beside JSON Schema's: the byte bound a string's maxLength stands for.
  ajv.addKeyword({ keyword: 'x-maxBytes', schemaType: 'number' });
  const schemas = JSON.parse(
    JSON.stringify(document.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/'),
  );
  ajv.addSchema({ $id: 'openapi', $defs: schemas });
  const compiled = new Map<string, ValidateFunction>();
  const refs = (schema: unknown): unknown =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"openapi#/$defs/'));
  return {
    /** Compiles `schema` (a component's name, or an inline schema of the document). */
    validate(schema: string | object, value: unknown): { valid: boolean; errors: string } {
      const key = typeof schema === 'string' ? schema : JSON.stringify(schema);
      let check = compiled.get(key);
      if (!check) {
        check = ajv.compile(
          typeof schema === 'string' ? { $ref: `openapi#/$defs/${schema}` } : (refs(schema) as object),
        );
        compiled.set(key, check);
      }
      const valid = check(value) as boolean;
      return { valid, errors: valid ? '' : ajv.errorsText(check.errors, { separator: '\n' }) };
    },
  };
}
