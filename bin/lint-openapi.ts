/**
 * `npm run lint:openapi`: lints the OpenAPI document the API serves (api/openapi.ts) with Redocly's linter
 * (`redocly lint`, its recommended rules) and exits with its code. test/api/openapi-lint.test.ts runs it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildOpenApiDocument } from '../api/openapi.ts';
import { CHECKOUT_DIR } from '../infra/env-file.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-openapi-'));
try {
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(buildOpenApiDocument(), null, 2));
  const r = spawnSync(
    path.join(CHECKOUT_DIR, 'node_modules', '.bin', 'redocly'),
    ['lint', '--format', 'stylish', file],
    {
      stdio: 'inherit',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  process.exitCode = r.status ?? 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
