// The OpenAPI document describes the same routes and shapes as the recorded one (test/fixtures/openapi/v1.json):
// a refactoring of how the document is built (zod schemas rendered instead of hand-written JSON Schema) changes
// no path, operation, parameter, response or schema. After an intended change of the API, write the new record
// with `KESOKU_WRITE_OPENAPI_FIXTURE=1 npx vitest run --project unit api/openapi.test.ts` and review its diff.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.ts';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/openapi/v1.json');

/** `required` lists compared as sets: their order means nothing. */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === 'required' && Array.isArray(v) ? [...(v as string[])].sort() : normalized(v),
    ]),
  );
}

describe('the OpenAPI document', () => {
  const doc = buildOpenApiDocument() as { paths: object; components: { schemas: object } };
  if (process.env.KESOKU_WRITE_OPENAPI_FIXTURE === '1')
    fs.writeFileSync(
      FIXTURE,
      `${JSON.stringify({ paths: doc.paths, schemas: doc.components.schemas }, null, 2)}\n`,
    );
  const recorded = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { paths: object; schemas: object };

  it('has the recorded paths, with the same operations, parameters and responses', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(Object.keys(recorded.paths).sort());
    expect(normalized(doc.paths)).toEqual(normalized(recorded.paths));
  });

  it('has the recorded component schemas, each the same shape', () => {
    expect(Object.keys(doc.components.schemas).sort()).toEqual(Object.keys(recorded.schemas).sort());
    for (const [name, schema] of Object.entries(recorded.schemas))
      expect({ name, schema: normalized((doc.components.schemas as Record<string, unknown>)[name]) }).toEqual(
        {
          name,
          schema: normalized(schema),
        },
      );
  });
});
