/**
 * The OpenAPI document the API serves is clean under a standard linter: `npm run lint:openapi` (Redocly's
 * `redocly lint` with its recommended rules) reports no error and no warning, and the document names its
 * servers and its license.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../api/openapi.ts';
import { ROOT } from '../test/support/processes.ts';

describe('the OpenAPI document', () => {
  it('passes redocly lint (recommended rules) without errors or warnings', async () => {
    const r = await promisify(execFile)(
      path.join(ROOT, 'node_modules', '.bin', 'node'),
      [path.join(ROOT, 'bin', 'lint-openapi.ts')],
      { cwd: ROOT, timeout: 60_000 },
    );
    const output = r.stdout + r.stderr;
    expect(output).toContain('Your API description is valid');
    expect(output).not.toMatch(/\b(warning|error)\b/);
  }, 90_000);

  it('names its servers and its license', () => {
    const doc = buildOpenApiDocument() as {
      servers?: { url: string }[];
      info: { license?: { name: string } };
    };
    expect(doc.servers?.[0]?.url).toBe('http://127.0.0.1:{port}');
    expect(doc.info.license?.name).toBe('MIT');
  });
});
