/**
 * Privileged code never follows a link a command planted: a command replaces the workspace's `attachments` with
 * a directory whose message folder is a link to a directory outside (a stand-in for /etc/cron.d), then the REST
 * API (real stack: API, Temporal, Postgres, worker, the fake model) and the Discord adapter's staging store a
 * file for that message id. Nothing is written outside; the files land in the session's attachment directory,
 * which commands can read (by the path the prompt names) but not change. Also: the root worker's ownership
 * fix-up never hands a linked tree to the sandbox user, and /healthz shows the sandbox.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageAttachments } from '../../adapters/discord/attachments.ts';
import type { ApiServer } from '../../api/server.ts';
import { workspaceDirFor } from '../../activities/tools/activities.ts';
import { createLogger } from '../../infra/logger.ts';
import { attachmentDirFor } from '../../infra/workspace.ts';
import { startApiFor } from '../api/support.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
let api: ApiServer;
let target: string;
beforeAll(async () => {
  stack = await startStack();
  api = await startApiFor(stack, { app: { dataDir: stack.dataDir } });
  target = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-link-target-'));
});
afterAll(async () => {
  await api?.close();
  await stack?.stop();
  if (target) fs.rmSync(target, { recursive: true, force: true });
});

/** Runs `command` as a tool call in `session` and returns the tool result's content. */
async function runTool(session: string, command: string): Promise<string> {
  const r = await stack.submit(session, `run: ${command}`);
  const done = await stack.waitForStatus(r.message.id, ['processed', 'error', 'interrupted'], 90_000);
  expect(done.status).toBe('processed');
  const results = (await stack.messages(session)).filter((m) => m.type === 'tool_result');
  return results.at(-1)!.content;
}

/** A command that replaces the workspace's `attachments` with a directory whose entry `id` links to `to`. */
const plant = (id: string, to: string) =>
  `rm -rf attachments; mkdir attachments && ln -s ${to} attachments/${id} && ls -l attachments && echo planted`;

describe('attachment storage never follows a planted link', () => {
  it('REST: a message whose id a command linked elsewhere stores its file in the attachment directory, nothing outside', async () => {
    const session = uniqueId('att-api');
    const id = 'job';
    expect(await runTool(session, plant(id, target))).toContain('planted');
    const res = await fetch(`${api.url}/v1/sessions/${session}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: `${id}-${session}`,
        content: 'see file',
        attachments: [
          { name: 'x', data: Buffer.from('* * * * * root touch /tmp/pwned\n').toString('base64') },
        ],
      }),
    });
    expect(res.status).toBe(202);
    // The same with the id the command linked exactly.
    const second = await fetch(`${api.url}/v1/sessions/${session}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id,
        content: 'see file',
        attachments: [
          { name: 'x', data: Buffer.from('* * * * * root touch /tmp/pwned\n').toString('base64') },
        ],
      }),
    });
    expect([202, 409]).toContain(second.status);
    expect(fs.readdirSync(target)).toEqual([]);
    const stored = path.join(attachmentDirFor(stack.dataDir, session, `${id}-${session}`), '0-x');
    expect(fs.readFileSync(stored, 'utf8')).toContain('root touch');
    expect(fs.lstatSync(path.dirname(stored)).isSymbolicLink()).toBe(false);
  }, 180_000);

  it('Discord: a planted attachments link sends no downloaded file outside', async () => {
    const server = http.createServer((_req, res) => res.end('attacker-chosen bytes\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const session = uniqueId('att-discord');
      const messageId = '123456789012345678';
      // The command's move, done directly in the workspace: `attachments` and the message folder as links.
      const ws = workspaceDirFor(stack.dataDir, session);
      fs.mkdirSync(ws, { recursive: true });
      fs.symlinkSync(target, path.join(ws, 'attachments'));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a.txt`;
      const records = await stageAttachments(
        'c1',
        messageId,
        [{ id: 'a1', name: 'a.txt', url, contentType: 'text/plain', size: 22 }],
        { dataDir: stack.dataDir, logger: createLogger('test', 'silent'), sessionId: session },
      );
      expect(fs.readdirSync(target)).toEqual([]);
      expect(records[0]?.path).toBe(
        path.join(attachmentDirFor(stack.dataDir, session, messageId), '0-a.txt'),
      );
      expect(fs.readFileSync(records[0]!.path!, 'utf8')).toBe('attacker-chosen bytes\n');
    } finally {
      server.close();
    }
  });

  it('a command reads an attachment at the path the prompt names and by its absolute path, and cannot change it', async () => {
    const session = uniqueId('att-ro');
    const id = uniqueId('m');
    const res = await fetch(`${api.url}/v1/sessions/${session}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id,
        content: 'see file',
        attachments: [{ name: 'n.txt', data: Buffer.from('ORIGINAL\n').toString('base64') }],
        wait: 60,
      }),
    });
    expect(res.status).toBe(200);
    const file = path.join(attachmentDirFor(stack.dataDir, session, id), '0-n.txt');
    const out = await runTool(
      session,
      `cat attachments/${id}/0-n.txt; cat ${file}; echo CHANGED > ${file}; rm -f ${file}; ` +
        `mv attachments/${id} attachments/moved; ls ${path.dirname(file)}`,
    );
    expect(out.match(/ORIGINAL/g)).toHaveLength(2);
    expect(out).toMatch(/Read-only file system/);
    expect(fs.readFileSync(file, 'utf8')).toBe('ORIGINAL\n');
  }, 180_000);

  it.runIf(process.getuid?.() === 0)(
    "the root worker's ownership fix-up never hands a linked tree to the sandbox user",
    async () => {
      const victim = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-victim-'));
      try {
        fs.writeFileSync(path.join(victim, 'secret'), 'root-only secret\n', { mode: 0o600 });
        const session = uniqueId('att-chown');
        const first = await runTool(
          session,
          `mv attachments old; ln -s ${victim} attachments; cat ${victim}/secret`,
        );
        expect(first).not.toContain('root-only secret');
        const second = await runTool(session, `cat ${victim}/secret; cat attachments/secret`);
        expect(second).not.toContain('root-only secret');
        expect(fs.statSync(path.join(victim, 'secret')).uid).toBe(0);
        expect(fs.statSync(victim).uid).toBe(0);
      } finally {
        fs.rmSync(victim, { recursive: true, force: true });
      }
    },
    180_000,
  );

  it('/healthz shows the sandbox of the worker in this process', async () => {
    const res = await fetch(`${api.url}/healthz`);
    const body = (await res.json()) as { sandbox?: Record<string, unknown> };
    expect(body.sandbox).toMatchObject({ mode: 'auto', state: 'bwrap', seccomp: true, network: 'off' });
  });
});
