// GET /api/openapi.json: the OpenAPI document the build generated (scripts/openapi.ts, written to
// dist/openapi.json by astro.config.mjs), read once per process. The site is never served unbuilt.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../project-root.ts';

/** Where the build writes the document, beside the site it describes. */
export const OPENAPI_FILE = join(projectRoot(), 'dist', 'openapi.json');

let document: unknown;

export function openapiDocument(): unknown {
  document ??= JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
  return document;
}
