/**
 * Test-run infrastructure: one real Temporal dev server and one isolated Postgres database per `npm test` run.
 *
 * Temporal: `TEMPORAL_ADDRESS` when set, otherwise a dev server started from the binary that
 * infra/temporal-server.ts resolves (explicit path, PATH, the cached Go build — built on first use), headless,
 * in memory, on a free port. Postgres: a fresh database `kesoku_test_<time>_<pid>` on the server at
 * `DATABASE_URL`, dropped afterwards; without `DATABASE_URL`, an embedded server in a temporary directory.
 * Test files read the addresses with `inject(...)` (see test/support/infra.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrate } from '../db/migrate.ts';
import { bundleWorkflows } from '../workers/build-worker.ts';
import { dropDatabase, ensureDatabase, resolvePostgres, withDatabase } from '../infra/postgres-server.ts';
import { freePort, resolveTemporalBinary, resolveTemporalServer } from '../infra/temporal-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalBinary: string;
    databaseUrl: string;
    adminDatabaseUrl: string;
    workflowBundlePath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-test-'));
  fs.chmodSync(tmp, 0o755);
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse())
      await fn().catch((err) => process.stderr.write(`[test infra] cleanup: ${err}\n`));
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    return await start(project, tmp, cleanups, started, cleanup);
  } catch (err) {
    await cleanup();
    throw err;
  }
}

async function start(
  project: TestProject,
  tmp: string,
  cleanups: (() => Promise<void>)[],
  started: number,
  cleanup: () => Promise<void>,
): Promise<() => Promise<void>> {
  const binary = await resolveTemporalBinary({ cliPath: process.env.KESOKU_TEMPORAL_CLI });
  const temporal = await resolveTemporalServer({
    address: process.env.TEMPORAL_ADDRESS,
    cliPath: process.env.KESOKU_TEMPORAL_CLI,
    port: await freePort(),
    uiPort: null,
    dbFilename: null,
    logFile: path.join(tmp, 'temporal.log'),
    allowDownload: true,
  });
  cleanups.push(() => temporal.stop());

  const pgServer = await resolvePostgres({
    databaseUrl: process.env.DATABASE_URL,
    dataDir: path.join(tmp, 'pg'),
    port: await freePort(),
    database: 'postgres',
  });
  cleanups.push(() => pgServer.stop());
  const dbName = `kesoku_test_${Date.now()}_${process.pid}`;
  const adminUrl = withDatabase(pgServer.url, 'postgres');
  await ensureDatabase(adminUrl, dbName);
  cleanups.push(() => dropDatabase(adminUrl, dbName));
  const databaseUrl = withDatabase(pgServer.url, dbName);
  await migrate(databaseUrl);

  // One workflow bundle for every worker the tests start (bundling takes seconds).
  const bundle = await bundleWorkflows();
  const workflowBundlePath = path.join(tmp, 'workflow-bundle.js');
  fs.writeFileSync(workflowBundlePath, bundle.code);
  project.provide('workflowBundlePath', workflowBundlePath);
  project.provide('temporalAddress', temporal.address);
  project.provide('temporalBinary', binary?.path ?? '');
  project.provide('databaseUrl', databaseUrl);
  project.provide('adminDatabaseUrl', adminUrl);
  process.stderr.write(
    `[test infra] Temporal ${temporal.address} (${temporal.source}), Postgres ${pgServer.source} db ${dbName}, ready in ${Date.now() - started} ms\n`,
  );

  return cleanup;
}
