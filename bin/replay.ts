/**
 * `npm run replay -- <dir>`: replays workflow histories against the workflow code in this checkout, before a
 * deploy, and exits 1 when any history does not replay (a nondeterminism error: the new code would wedge that
 * session). `npm run replay -- --export <dir>` first exports the histories to check: every running
 * `sessionWorkflow` and `titleWorkflow` execution of the deployment the Temporal environment configuration
 * points at (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, or a profile).
 *
 * Files are `<workflowId>.json`: `{"format":"temporal.api.history.v1.History/protobuf+base64","data":…}`, the
 * format of the replay fixtures under test/fixtures/histories (which this command also reads).
 *
 * Payload keys: histories a Kesoku worker wrote hold AES-GCM encrypted payloads (infra/payload-codec.ts), so the
 * command reads the keys the way the worker does — `KESOKU_PAYLOAD_KEYS`, else `<KESOKU_DATA_DIR>/payload-keys` —
 * and replays with the same data converter. `--export` refuses to start without keys; a directory whose
 * histories are all plaintext (the replay fixtures) replays without any. Exported files stay encrypted.
 *
 * Options: `--export <dir>` (export, then replay what was exported), `--query <visibility query>` (what to export;
 * default running session and title workflows), `--limit N` (at most N histories exported; default 10 000).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { ConfigError, loadConfig } from '../infra/config.ts';
import { PAYLOAD_KEYS_FILE, resolvePayloadKeys, type PayloadKey } from '../infra/payload-codec.ts';
import { connectTemporal } from '../infra/temporal-connection.ts';
import { connectionSettingsOf, resolveTemporalSettings } from '../infra/temporal-envconfig.ts';
import { DEFAULT_EXPORT_QUERY, exportHistories, replayDirectory } from '../infra/temporal-replay.ts';
import { WORKFLOWS_PATH } from '../workers/build-worker.ts';

/**
 * The payload keys the worker of this environment would use: `KESOKU_PAYLOAD_KEYS`, else
 * `<KESOKU_DATA_DIR>/payload-keys` (never created here). Without either, an export (histories of a deployment,
 * all encrypted) is refused; a directory is replayed without keys, which suits plaintext histories only.
 * @throws ConfigError when `required` and no key is configured, or when the keys are malformed
 */
function replayKeys(required: boolean): PayloadKey[] {
  const cfg = loadConfig();
  const file = path.join(cfg.KESOKU_DATA_DIR, PAYLOAD_KEYS_FILE);
  if (!required && !cfg.KESOKU_PAYLOAD_KEYS && !fs.existsSync(file)) return [];
  return resolvePayloadKeys({ env: cfg.KESOKU_PAYLOAD_KEYS, dataDir: cfg.KESOKU_DATA_DIR, create: false })
    .keys;
}

async function main(argv: string[]): Promise<number> {
  const args = [...argv];
  const take = (flag: string): string | undefined => {
    const i = args.indexOf(flag);
    if (i < 0) return undefined;
    const [, value] = args.splice(i, 2);
    return value;
  };
  const exportDir = take('--export');
  const query = take('--query') ?? DEFAULT_EXPORT_QUERY;
  const limit = Number(take('--limit') ?? 10_000);
  const dir = exportDir ?? args[0];
  if (!dir) {
    process.stderr.write(
      'usage: npm run replay -- <dir>   |   npm run replay -- --export <dir> [--query Q] [--limit N]\n',
    );
    return 2;
  }
  let truncated = false;
  if (exportDir) {
    // Checked before exporting: the export's histories cannot be replayed without them.
    replayKeys(true);
    const settings = resolveTemporalSettings();
    if (!settings.address) {
      process.stderr.write(
        'kesoku replay: set TEMPORAL_ADDRESS (or a Temporal config profile) to export from a deployment\n',
      );
      return 2;
    }
    const connection = await connectTemporal({
      address: settings.address,
      ...connectionSettingsOf(settings),
    });
    try {
      const exported = await exportHistories(
        new Client({ connection, namespace: settings.namespace }),
        exportDir,
        query,
        limit,
      );
      process.stdout.write(
        `exported ${exported.written} histories from ${settings.address} (namespace ${settings.namespace}) to ${exportDir}\n`,
      );
      truncated = exported.truncated;
      if (truncated)
        process.stderr.write(
          `kesoku replay: more than ${limit} executions match; only ${limit} were exported and replayed. ` +
            'Raise --limit (or narrow --query) to check the whole deployment.\n',
        );
    } finally {
      await connection.close();
    }
  }
  const outcomes = await replayDirectory(dir, {
    workflowsPath: WORKFLOWS_PATH,
    keys: replayKeys(exportDir !== undefined),
  });
  const failed = outcomes.filter((o) => o.error);
  for (const o of failed) process.stdout.write(`FAIL ${o.file}\n  ${o.error?.split('\n')[0]}\n`);
  process.stdout.write(
    `replayed ${outcomes.length} histories: ${outcomes.length - failed.length} ok, ${failed.length} failed\n`,
  );
  // A sample is not a check of the deployment: exit 3 (histories beyond the limit were not replayed).
  return failed.length > 0 ? 1 : truncated ? 3 : 0;
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`kesoku replay: ${err instanceof Error ? err.message : String(err)}\n`);
      // A configuration problem (missing keys, bad settings) is a usage error, like a missing argument.
      process.exit(err instanceof ConfigError ? 2 : 1);
    },
  );
}
