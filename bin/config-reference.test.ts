/**
 * The configuration reference cannot drift: docs/configuration.md and .env.example are exactly what
 * `npm run docs:config` renders from the schemas, and every KESOKU_* variable the code or docker-compose.yml
 * reads is a known setting (documented), a channel's, or a test/tool variable.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_FILES, renderConfigurationDoc, renderEnvExample } from './config-reference.ts';
import { settingNames, TOOLING_VARIABLE_PREFIXES } from '../infra/config.ts';
import { channelVariableNames } from '../adapters/registry.ts';
import { ROOT } from '../test/support/processes.ts';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

describe('the configuration reference', () => {
  it('docs/configuration.md and .env.example are what `npm run docs:config` renders from the schema', () => {
    expect(fs.readFileSync(REFERENCE_FILES.doc, 'utf8'), 'run npm run docs:config').toBe(
      renderConfigurationDoc(),
    );
    expect(fs.readFileSync(REFERENCE_FILES.example, 'utf8'), 'run npm run docs:config').toBe(
      renderEnvExample(),
    );
  });

  it('names every KESOKU_* variable the code and docker-compose.yml read', () => {
    const known = new Set([...settingNames(), ...channelVariableNames()]);
    const files = ['activities', 'adapters', 'api', 'bin', 'db', 'domain', 'infra', 'workers'].flatMap((d) =>
      sources(path.join(ROOT, d)),
    );
    const read = new Set<string>();
    for (const f of files) {
      const text = fs.readFileSync(f, 'utf8');
      for (const m of text.matchAll(/(?:env\.|['"`])(KESOKU_[A-Z0-9_]*[A-Z0-9])\b/g))
        read.add(m[1] as string);
    }
    const compose = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    for (const m of compose.matchAll(/\$\{(KESOKU_[A-Z0-9_]+)/g)) read.add(m[1] as string);
    const missing = [...read].filter(
      (n) => !known.has(n) && !TOOLING_VARIABLE_PREFIXES.some((p) => n.startsWith(p)),
    );
    expect(missing, 'add each to infra/config.ts with doc(…)').toEqual([]);
    expect(read.size).toBeGreaterThan(30);
  });
});
