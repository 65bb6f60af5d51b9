/**
 * Chat access denies by default: with no allowlist, an unknown Discord user (real discord.js against the fake
 * Discord gateway, real Temporal, Postgres and worker) gets only a pairing code — no stored message, no model
 * request, no tool run — until an operator approves the code with the real CLI (`bin/kesoku.ts`, a child process)
 * or the admin REST endpoint. An expired code is refused. `DISCORD_ALLOW_ALL=true` keeps open access and warns.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiServer } from '../../api/server.ts';
import { snowflake } from '../../adapters/discord/test/fake-server.ts';
import { startDiscordBench, type DiscordBench } from '../../adapters/discord/test/harness.ts';
import { startApiFor } from '../api/support.ts';
import { ROOT } from '../support/processes.ts';
import { requestPairing } from '../../db/pairings.ts';

/** Runs the operator CLI as `npm run kesoku -- <args>` does (node bin/kesoku.ts), against `env`. */
function kesoku(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // The project's Node 24 (the `node` npm package), which `npm run kesoku` runs.
    execFile(
      path.join(ROOT, 'node_modules', '.bin', 'node'),
      [path.join(ROOT, 'bin', 'kesoku.ts'), ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const CODE = /\*\*([A-Z2-9]{8})\*\*/;

function stranger(name: string) {
  return { id: snowflake(), username: name, global_name: name[0]?.toUpperCase() + name.slice(1) };
}

describe('pairing (the default: no allowlist)', () => {
  let bench: DiscordBench;
  let api: ApiServer;
  beforeAll(async () => {
    bench = await startDiscordBench({});
    api = await startApiFor(bench.stack);
  });
  afterAll(async () => {
    await api?.close();
    await bench?.stop();
  });

  const db = () => ({ DATABASE_URL: bench.stack.databaseUrl });
  const storedIn = async (sessionId: string) =>
    (await bench.stack.pool.query('SELECT id FROM messages WHERE session_id = $1', [sessionId])).rowCount;
  const modelSaw = (text: string) =>
    bench.stack.fake.chatRequests().some((r) => JSON.stringify(r.body?.messages ?? []).includes(text));

  it('gives an unpaired DM user only a pairing code; after `pairing approve <code>` (CLI) the next message runs a turn', async () => {
    const bob = stranger('bob');
    const dm = snowflake();
    const first = await bench.say({
      channelId: dm,
      dm: true,
      author: bob,
      content: 'run: touch /tmp/pwned-by-bob',
    });
    expect(first.outcome).toBe('pairing');
    const answer = await bench.fake.waitFor(() => bench.repliesTo(dm, first.id)[0]);
    const code = CODE.exec(answer.content)?.[1];
    expect(code).toBeDefined();
    expect(answer.content).toContain(`npm run kesoku -- pairing approve ${code}`);

    // Asking again within the hour: the same code, and no second answer (replies are rate limited).
    const again = await bench.say({ channelId: dm, dm: true, author: bob, content: 'hello?' });
    expect(again.outcome).toBe('pairing');
    await new Promise((r) => setTimeout(r, 300));
    expect(bench.repliesTo(dm, again.id)).toEqual([]);
    const open = await bench.stack.pool.query('SELECT code FROM chat_pairing_requests WHERE user_id = $1', [
      bob.id,
    ]);
    expect(open.rows).toEqual([{ code }]);

    // Nothing else happened: no stored message, no session, no model request, no tool run.
    expect(await storedIn(`discord:${dm}`)).toBe(0);
    expect(bench.stack.requestsOf(`discord:${dm}`)).toEqual([]);
    expect(modelSaw('pwned-by-bob')).toBe(false);

    const listed = await kesoku(['pairing', 'list'], db());
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${code}  discord:${bob.id}  Bob`);

    const approved = await kesoku(['pairing', 'approve', (code as string).toLowerCase()], db());
    expect(approved.stderr).toBe('');
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`Approved: Bob (discord:${bob.id})`);

    const next = await bench.say({ channelId: dm, dm: true, author: bob, content: 'now I may talk' });
    expect(next.outcome).toBe('submitted');
    expect((await bench.waitInbound(next.id)).status).toBe('processed');
    const reply = await bench.fake.waitFor(() => bench.repliesTo(dm, next.id)[0]);
    expect(reply.content).toContain('now I may talk');

    // Revoked: back to a stranger (a new code).
    const revoked = await kesoku(['pairing', 'revoke', `discord:${bob.id}`], db());
    expect(revoked.code).toBe(0);
    const after = await bench.say({ channelId: dm, dm: true, author: bob, content: 'still there?' });
    expect(after.outcome).toBe('pairing');
  });

  it('sends the code of a guild mention by DM, never in the channel; the admin REST endpoint approves it', async () => {
    const carol = stranger('carol');
    const channel = bench.channels[1] as string;
    const { id, outcome } = await bench.say({
      channelId: channel,
      author: carol,
      content: 'run: id',
      mentionBot: true,
    });
    expect(outcome).toBe('pairing');
    const notice = await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]);
    expect(notice.content).toMatch(/sent you a pairing code in a direct message/);
    expect(notice.content).not.toMatch(CODE);
    const dmChannel = bench.fake.dmChannelOf(carol.id);
    expect(dmChannel).toBeDefined();
    const dmText = (await bench.fake.waitFor(() => bench.fake.botMessages(dmChannel)[0])).content;
    const code = CODE.exec(dmText)?.[1] as string;
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    expect(bench.fake.botMessages(channel).some((m) => m.content.includes(code))).toBe(false);
    expect(await storedIn(`discord:${channel}`)).toBe(0);
    expect(modelSaw('run: id')).toBe(false);

    const list = await fetch(`${api.url}/v1/admin/pairings`);
    expect(list.status).toBe(200);
    const pending = ((await list.json()) as { pending: { code: string; user_id: string }[] }).pending;
    expect(pending).toContainEqual(expect.objectContaining({ code, user_id: carol.id }));

    // With API tokens configured, the admin routes need one.
    const guarded = await startApiFor(bench.stack, {
      tokens: [{ name: 'ops', admin: true, token: 'ops-token' }],
    });
    try {
      const refused = await fetch(`${guarded.url}/v1/admin/pairings/${code}/approve`, { method: 'POST' });
      expect(refused.status).toBe(401);
      const listedWithToken = await fetch(`${guarded.url}/v1/admin/pairings`, {
        headers: { authorization: 'Bearer ops-token' },
      });
      expect(listedWithToken.status).toBe(200);
    } finally {
      await guarded.close();
    }

    const res = await fetch(`${api.url}/v1/admin/pairings/${code}/approve`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      approved: { chatbot_id: 'discord', user_id: carol.id, user_name: 'Carol', approved_by: 'api' },
      already_approved: false,
    });
    const twice = await fetch(`${api.url}/v1/admin/pairings/${code}/approve`, { method: 'POST' });
    expect(await twice.json()).toMatchObject({ already_approved: true });

    const next = await bench.say({
      channelId: channel,
      author: carol,
      content: 'hello after pairing',
      mentionBot: true,
    });
    expect(next.outcome).toBe('submitted');
    expect((await bench.waitInbound(next.id)).status).toBe('processed');
    await bench.fake.waitFor(() => bench.repliesTo(channel, next.id)[0]);
  });

  it('tells a guild user who cannot be DMed to write a DM, still without the code in the channel', async () => {
    const gina = stranger('gina');
    const channel = bench.channels[2] as string;
    // The DM is refused (the user does not accept DMs from server members): Discord error 50007.
    bench.fake.failNext('POST /channels/:id/messages', {
      kind: 'error',
      status: 403,
      code: 50007,
      message: 'Cannot send messages to this user',
    });
    const { id, outcome } = await bench.say({
      channelId: channel,
      author: gina,
      content: 'hi',
      mentionBot: true,
    });
    expect(outcome).toBe('pairing');
    const notice = await bench.fake.waitFor(() => bench.repliesTo(channel, id)[0]);
    expect(notice.content).toMatch(/could not send you a direct message/);
    expect(notice.content).not.toMatch(CODE);
    const code = (
      await bench.stack.pool.query<{ code: string }>(
        'SELECT code FROM chat_pairing_requests WHERE user_id = $1',
        [gina.id],
      )
    ).rows[0]?.code as string;
    expect(bench.fake.messages.some((m) => m.content.includes(code))).toBe(false);
  });

  it('refuses an expired code (CLI and REST) and gives the user a new one', async () => {
    const dave = stranger('dave');
    const dm = snowflake();
    const first = await bench.say({ channelId: dm, dm: true, author: dave, content: 'hi' });
    expect(first.outcome).toBe('pairing');
    const code = CODE.exec(
      (await bench.fake.waitFor(() => bench.repliesTo(dm, first.id)[0])).content,
    )?.[1] as string;
    await bench.stack.pool.query(
      `UPDATE chat_pairing_requests SET expires_at = now() - interval '1 second' WHERE code = $1`,
      [code],
    );
    const cli = await kesoku(['pairing', 'approve', code], db());
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/expired/);
    const res = await fetch(`${api.url}/v1/admin/pairings/${code}/approve`, { method: 'POST' });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ reason: 'expired' });
    expect(
      (await bench.stack.pool.query('SELECT 1 FROM chat_paired_users WHERE user_id = $1', [dave.id]))
        .rowCount,
    ).toBe(0);

    const again = await bench.say({ channelId: dm, dm: true, author: dave, content: 'hi again' });
    expect(again.outcome).toBe('pairing');
    const fresh = CODE.exec((await bench.fake.waitFor(() => bench.repliesTo(dm, again.id)[0])).content)?.[1];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(code);
    expect(await storedIn(`discord:${dm}`)).toBe(0);
    // An unknown code and a malformed one are refused too.
    expect((await kesoku(['pairing', 'approve', 'ZZZZZZZZ'], db())).code).toBe(1);
    expect((await kesoku(['pairing', 'approve', 'nope'], db())).code).toBe(2);
  });

  it('the operator CLI prints a stranger-chosen name without its terminal escapes or line breaks', async () => {
    const evil = '\x1b]52;c;ZXZpbA==\x07Eve\x1b[2J\u009b31m\nApproved: admin (discord:1) may talk';
    const userId = snowflake();
    const { code } = await requestPairing(bench.stack.pool, {
      chatbotId: 'discord',
      userId,
      userName: evil,
    });
    const listed = await kesoku(['pairing', 'list'], db());
    const line = listed.stdout.split('\n').find((l) => l.includes(code)) ?? '';
    expect(line).toContain('Eve');
    // eslint-disable-next-line no-control-regex -- looking for control characters is the point
    expect(listed.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(listed.stdout.split('\n').filter((l) => l.startsWith('Approved:'))).toEqual([]);
    const approved = await kesoku(['pairing', 'approve', code], db());
    // eslint-disable-next-line no-control-regex -- as above
    expect(approved.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(approved.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('approves through the REST API when DATABASE_URL is not set (as with `npm start`)', async () => {
    const erin = stranger('erin');
    const dm = snowflake();
    const first = await bench.say({ channelId: dm, dm: true, author: erin, content: 'hi' });
    const code = CODE.exec(
      (await bench.fake.waitFor(() => bench.repliesTo(dm, first.id)[0])).content,
    )?.[1] as string;
    const env = { DATABASE_URL: '', KESOKU_API_URL: api.url };
    const approved = await kesoku(['pairing', 'approve', code], env);
    expect(approved.stderr).toBe('');
    expect(approved.stdout).toContain(`Approved: Erin (discord:${erin.id})`);
    const next = await bench.say({ channelId: dm, dm: true, author: erin, content: 'hello' });
    expect(next.outcome).toBe('submitted');
  });
});

describe('DISCORD_ALLOW_ALL=true', () => {
  let bench: DiscordBench;
  let warned = '';
  beforeAll(async () => {
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      warned += String(chunk);
      return true;
    });
    try {
      bench = await startDiscordBench({ DISCORD_ALLOW_ALL: 'true' });
    } finally {
      spy.mockRestore();
    }
  });
  afterAll(async () => bench?.stop());

  it('keeps open access (a stranger runs a turn) and warns on stderr at start', async () => {
    expect(warned).toMatch(/kesoku: WARNING: DISCORD_ALLOW_ALL=true: ANYONE who can reach the Discord bot/);
    const frank = stranger('frank');
    const dm = snowflake();
    const { id, outcome } = await bench.say({
      channelId: dm,
      dm: true,
      author: frank,
      content: 'run: echo open',
    });
    expect(outcome).toBe('submitted');
    expect((await bench.waitInbound(id)).status).toBe('processed');
    const reply = await bench.fake.waitFor(() => bench.repliesTo(dm, id)[0]);
    expect(reply.content).toContain('Done: open');
  });
});
