/**
 * `/healthz` of the API under `npm start` reports the Discord gateway's state next to Temporal and Postgres when
 * the adapter runs (the real `npm start` entry point, against the fake Discord over 127.0.0.1): 200 with
 * `components.discord` ready while the gateway is connected, 503 naming Discord once the gateway is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/temporal-server.ts';
import { snowflake, startFakeDiscord, type FakeDiscord } from '../../adapters/discord/test/fake-server.ts';
import { startEntry, stackEnv, type ChildPart } from '../support/processes.ts';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let fake: FakeDiscord;
let kesoku: ChildPart | undefined;

beforeAll(async () => {
  stack = await startStack({ noWorker: true });
  fake = await startFakeDiscord({ guilds: [{ id: snowflake(), channels: [{ id: snowflake() }] }] });
});

afterAll(async () => {
  await kesoku?.kill('SIGKILL');
  await fake?.close();
  await stack?.stop();
});

interface HealthBody {
  status: string;
  temporal: boolean;
  postgres: boolean;
  detail?: string;
  components?: Record<string, { ok: boolean; gateway?: string }>;
}

describe('GET /healthz under npm start with the Discord adapter', () => {
  it('reports the gateway state: ready while connected, 503 naming Discord once it is gone', async () => {
    const port = await freePort();
    kesoku = startEntry(
      'start',
      stackEnv(stack, {
        KESOKU_API_PORT: String(port),
        DISCORD_TOKEN: fake.token,
        DISCORD_API_URL: fake.apiUrl,
      }),
    );
    await kesoku.waitFor('Press Ctrl-C to stop.', 180_000);
    const health = async () => {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      return { status: r.status, body: (await r.json()) as HealthBody };
    };

    const up = await health();
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ status: 'ok', temporal: true, postgres: true });
    expect(up.body.components?.discord).toMatchObject({ ok: true, gateway: 'ready' });

    // The gateway goes away (the fake Discord stops): the same endpoint now answers 503 and says why.
    await fake.close();
    let down = up;
    await expect
      .poll(async () => (down = await health()).status, { timeout: 60_000, interval: 500 })
      .toBe(503);
    expect(down.body).toMatchObject({ temporal: true, postgres: true });
    expect(down.body.components?.discord?.ok).toBe(false);
    expect(down.body.detail).toContain('discord');
  }, 300_000);
});
