/**
 * `npm run recover -- <sessionId>… | --stuck`: terminates the stuck run of each session and starts one that
 * restores from Postgres (infra/session-recovery.ts); prints what it did, one line each. Needs TEMPORAL_ADDRESS
 * (or a Temporal config profile) and the deployment's payload keys. docs/operations.md "A session stuck on a
 * nondeterminism error".
 */
import { Client } from '@temporalio/client';
import { capabilitiesOf } from '../adapters/registry.ts';
import { loadConfig } from '../infra/config.ts';
import { AesGcmPayloadCodec, resolvePayloadKeys } from '../infra/payload-codec.ts';
import { SessionClient } from '../infra/session-client.ts';
import { recoverSession, stuckSessions } from '../infra/session-recovery.ts';
import { connectTemporal } from '../infra/temporal-connection.ts';
import { connectionSettingsOf, resolveTemporalSettings } from '../infra/temporal-envconfig.ts';
import { taskQueueOf } from '../workers/infrastructure.ts';

/** Recovers the sessions `argv` names (or the stuck ones); the exit code. */
async function main(argv: string[]): Promise<number> {
  const stuck = argv.includes('--stuck');
  const ids = argv.filter((a) => !a.startsWith('--'));
  if (!stuck && ids.length === 0) {
    process.stderr.write('usage: npm run recover -- <sessionId>…   |   npm run recover -- --stuck\n');
    return 2;
  }
  const cfg = loadConfig();
  const settings = resolveTemporalSettings();
  if (!settings.address) {
    process.stderr.write('kesoku recover: set TEMPORAL_ADDRESS (or a Temporal config profile)\n');
    return 2;
  }
  const keys = resolvePayloadKeys({
    env: cfg.KESOKU_PAYLOAD_KEYS,
    dataDir: cfg.KESOKU_DATA_DIR,
    create: false,
  });
  const connection = await connectTemporal({ address: settings.address, ...connectionSettingsOf(settings) });
  try {
    const client = new Client({
      connection,
      namespace: settings.namespace,
      dataConverter: { payloadCodecs: [new AesGcmPayloadCodec(keys.keys)] },
    });
    const sessions = new SessionClient({
      client,
      taskQueue: taskQueueOf(),
      continueAsNewAfterTurns: cfg.KESOKU_CONTINUE_AS_NEW_TURNS,
      continueAsNewAfterEvents: cfg.KESOKU_CONTINUE_AS_NEW_EVENTS,
      idleEndS: cfg.KESOKU_SESSION_IDLE_S,
      capabilities: capabilitiesOf,
    });
    const targets = [...ids, ...(stuck ? await stuckSessions(client) : [])];
    for (const id of targets) {
      const r = await recoverSession(sessions, id);
      process.stdout.write(
        `${id}: terminated ${r.terminatedRunId ?? '(no running run)'}, new run ${r.newRunId}, re-submitted ${r.resubmitted.length}\n`,
      );
    }
    if (targets.length === 0) process.stdout.write('no stuck session\n');
    return 0;
  } finally {
    await connection.close();
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`kesoku recover: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
