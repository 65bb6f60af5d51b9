import net from 'node:net';
import { Connection } from '@temporalio/client';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyTemporal } from './temporal-connection.ts';
import { collectUncaught } from '../test/support/uncaught.ts';

/** A port on 127.0.0.1 that nothing listens on (connections are refused at once). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * Starts a call against a closed port, waits until the SDK's retry interceptor has a retry timer
 * pending, closes the connection, and waits past the timer.
 */
async function closeWhileRetrying(connection: Connection): Promise<unknown> {
  const call = connection.workflowService.getSystemInfo({}).then(
    () => null,
    (err: unknown) => err,
  );
  // The first attempt fails within milliseconds (connection refused); retries wait 100 ms, 170 ms, …
  await new Promise((r) => setTimeout(r, 150));
  await connection.close();
  await new Promise((r) => setTimeout(r, 1200));
  return await Promise.race([call, new Promise((r) => setTimeout(() => r('still pending'), 3000))]);
}

describe('Temporal connection closed while a call is retrying', () => {
  let restore = () => {};
  afterEach(() => restore());

  it('with the guard: the call fails with CANCELLED and nothing is thrown from a timer', async () => {
    const uncaught = collectUncaught();
    restore = uncaught.restore;
    const result = await closeWhileRetrying(lazyTemporal({ address: `127.0.0.1:${await closedPort()}` }));
    expect(uncaught.errors).toEqual([]);
    expect(result).toMatchObject({ code: 1 }); // grpc status CANCELLED
  });

  it('without the guard (the SDK default) the pending retry throws "Channel has been shut down"', async () => {
    // Pins the SDK behaviour the guard exists for: if this starts failing, the guard may be dropped.
    const uncaught = collectUncaught();
    restore = uncaught.restore;
    await closeWhileRetrying(Connection.lazy({ address: `127.0.0.1:${await closedPort()}` }));
    expect(uncaught.errors.map((e) => (e as Error).message)).toContain('Channel has been shut down');
  });
});
