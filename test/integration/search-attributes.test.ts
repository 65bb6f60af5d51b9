/**
 * Kesoku's search attributes are the app's to register: a worker adds them at start on a server that has none
 * (two workers starting at once both succeed), so the first message succeeds; where the server refuses to add
 * them (a hosted frontend answering PermissionDenied), the worker stops at start with the exact command.
 */
import { Client } from '@temporalio/client';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { connectTemporal } from '../../infra/temporal-connection.ts';
import { freePort, startDevServer, type TemporalServer } from '../../infra/temporal-server.ts';
import { SessionClient } from '../../infra/session-client.ts';
import {
  KESOKU_SEARCH_ATTRIBUTES,
  ensureSearchAttributes,
  SearchAttributesMissingError,
} from '../../infra/temporal-search-attributes.ts';
import { startFakeFrontend } from '../fakes/temporal-frontend.ts';
import { startPart, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
let fresh: TemporalServer;
const parts: ChildPart[] = [];
beforeAll(async () => {
  stack = await startStack({ noWorker: true });
  // A Temporal dev server started WITHOUT Kesoku's --search-attribute flags.
  fresh = await startDevServer(
    inject('temporalBinary'),
    { port: await freePort(), uiPort: null, dbFilename: null, searchAttributes: false },
    'cache',
  );
});
afterAll(async () => {
  for (const p of parts) await p.kill('SIGTERM');
  await fresh?.stop();
  await stack?.stop();
});

describe('search attributes owned by the app', () => {
  it('two workers starting at once on a fresh server register them, and the first message succeeds', async () => {
    const connection = await connectTemporal({ address: fresh.address });
    try {
      const before = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(
        Object.keys(before.customAttributes ?? {}).filter((n) => KESOKU_SEARCH_ATTRIBUTES.includes(n)),
      ).toEqual([]);

      const env = stackEnv(stack, { TEMPORAL_ADDRESS: fresh.address, KESOKU_LOG_LEVEL: 'info' });
      parts.push(startPart('bin/worker.ts', env), startPart('bin/worker.ts', env));
      // Each worker bundles the workflow code at start: slow on a loaded two-core machine.
      await Promise.all(parts.map((p) => p.waitFor('kesoku worker running', 200_000)));

      const after = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      for (const n of KESOKU_SEARCH_ATTRIBUTES) expect(after.customAttributes?.[n]).toBeDefined();

      const sessions = new SessionClient({
        client: new Client({
          connection,
          namespace: 'default',
          dataConverter: { payloadCodecs: [stack.payloadCodec] },
        }),
        taskQueue: stack.taskQueue,
      });
      const sessionId = uniqueId('s');
      const r = await sessions.submit(
        { sessionId, chatbotId: 'api', channelId: sessionId },
        {
          id: uniqueId('m'),
          content: 'hello on a fresh server',
          sender: 'tester',
          receivedAt: new Date().toISOString(),
        },
      );
      const done = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'], 30_000);
      expect(done.status).toBe('processed');
      // A later call finds them all and adds nothing.
      expect(await ensureSearchAttributes({ connection, namespace: 'default' })).toEqual([]);
    } finally {
      await connection.close();
    }
  }, 300_000);

  it('a frontend that refuses to add them stops the worker at start with the exact command', async () => {
    const frontend = await startFakeFrontend({ denyCode: status.PERMISSION_DENIED });
    try {
      const worker = startPart('bin/worker.ts', stackEnv(stack, { TEMPORAL_ADDRESS: frontend.address }));
      parts.push(worker);
      const code = await new Promise<number | null>((resolve) =>
        worker.child.once('exit', (c) => resolve(c)),
      );
      expect(code).toBe(1);
      expect(worker.output()).toContain(
        'temporal operator search-attribute create --namespace default --name KesokuChatbotId --type Keyword --name KesokuChannelId --type Keyword --name KesokuSessionStatus --type Keyword',
      );
      expect(worker.output()).toContain('PERMISSION_DENIED');
      expect(worker.output()).not.toContain('kesoku worker running');
      expect(frontend.calls).toContain('AddSearchAttributes');
    } finally {
      await frontend.close();
    }
  }, 60_000);

  it('Unimplemented (Temporal Cloud) is the same typed error, naming the tcld command too', async () => {
    const frontend = await startFakeFrontend({ denyCode: status.UNIMPLEMENTED });
    const connection = await connectTemporal({ address: frontend.address });
    try {
      const err = await ensureSearchAttributes({ connection, namespace: 'acme.a1b2c' }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SearchAttributesMissingError);
      expect((err as SearchAttributesMissingError).kind).toBe('search_attributes_missing');
      expect((err as SearchAttributesMissingError).missing).toEqual([...KESOKU_SEARCH_ATTRIBUTES]);
      expect((err as Error).message).toContain(
        'tcld namespace search-attributes add --namespace acme.a1b2c --search-attribute "KesokuChatbotId=Keyword"',
      );
    } finally {
      await connection.close();
      await frontend.close();
    }
  });
});
