/**
 * The tool activity (MockActivityEnvironment, real Postgres, the real sandbox) turns every file system failure
 * into a tool result the model sees, never a failed attempt that Temporal would retry while a command flips
 * links; and without a working sandbox every tool call is refused with the fix, unless the operator chose
 * KESOKU_SANDBOX=off.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createToolActivities, resultIdOf, workspaceDirFor } from '../../activities/tools/activities.ts';
import {
  defaultSandboxSettings,
  prepareSandbox,
  SandboxUnavailableError,
  type Sandbox,
} from '../../activities/tools/sandbox.ts';
import { commit, getMessage } from '../../db/messages.ts';
import { createPool, type Pool } from '../../db/pool.ts';
import { ensureSession } from '../../db/sessions.ts';
import { toolCall } from '../../domain/factories.ts';
import { createLogger } from '../../infra/logger.ts';

let pool: Pool;
let dataDir: string;
let n = 0;
beforeAll(() => {
  pool = createPool(inject('databaseUrl'));
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-tool-errors-'));
});
afterAll(async () => {
  await pool.end();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A session with one stored tool_call; returns the activity input and the session's workspace. */
async function storedCall(tool: string, args: Record<string, unknown>) {
  n += 1;
  const sessionId = `tool-err-${process.pid}-${Date.now().toString(36)}-${n}`;
  await ensureSession(pool, { id: sessionId, chatbotId: 'api', channelId: sessionId });
  const id = `${sessionId}-call`;
  await commit(pool, sessionId, {
    insert: [
      toolCall({
        id,
        session_id: sessionId,
        chatbot_id: 'api',
        channel_id: sessionId,
        turn_id: `${sessionId}-turn`,
        step: 0,
        tool_name: tool,
        tool_arguments: args,
        tool_call_id: `call_${n}`,
      }),
    ],
  });
  const workspace = workspaceDirFor(dataDir, sessionId);
  fs.mkdirSync(workspace, { recursive: true });
  return { input: { sessionId, turnId: `${sessionId}-turn`, toolCallMessageId: id }, workspace };
}

async function runCall(
  sandbox: Sandbox | undefined,
  tool: string,
  args: Record<string, unknown>,
  plant?: (ws: string) => void,
) {
  const { input, workspace } = await storedCall(tool, args);
  plant?.(workspace);
  const activities = createToolActivities({
    pool,
    logger: createLogger('test', 'silent'),
    dataDir,
    defaultTimeoutMs: 30_000,
    heartbeatIntervalMs: 50,
    ...(sandbox ? { sandbox } : {}),
  });
  const result = (await new MockActivityEnvironment().run(activities.runToolCall, input)) as {
    ok: boolean;
    summary: string;
  };
  const stored = await getMessage(pool, resultIdOf(input.toolCallMessageId));
  return { result, content: stored?.content ?? '', workspace };
}

describe('a file system error is a tool result, not a failed attempt', () => {
  const loop = (ws: string) => fs.symlinkSync('x', path.join(ws, 'x'));
  for (const mode of ['required', 'off'] as const) {
    it(`read_file and write_file through a link loop (${mode === 'off' ? 'KESOKU_SANDBOX=off' : 'sandboxed'})`, async () => {
      const sandbox = await prepareSandbox(defaultSandboxSettings(dataDir, { mode }));
      for (const [tool, args] of [
        ['read_file', { path: 'x/y' }],
        ['read_file', { path: 'x' }],
        ['write_file', { path: 'x/y', content: 'z' }],
      ] as const) {
        const { result, content } = await runCall(sandbox, tool, args, loop);
        expect(result.ok, `${tool} ${JSON.stringify(args)}`).toBe(false);
        expect(content).toMatch(/^Error: /);
      }
    }, 60_000);
  }
});

describe('without a working sandbox, tools are refused unless the operator chose off', () => {
  // A sandbox bubblewrap cannot build here: a hidden path inside the sandbox's own /proc.
  const broken = () => defaultSandboxSettings(dataDir, { hide: [`/proc/${process.pid}`] });

  it('mode auto: the probe reports no sandbox, and every tool call is refused with the fix; nothing runs', async () => {
    const sandbox = await prepareSandbox(broken());
    for (const [tool, args] of [
      ['run_shell_command', { command: 'echo ran > ran.txt' }],
      ['write_file', { path: 'ran.txt', content: 'ran' }],
      ['read_file', { path: 'ran.txt' }],
    ] as const) {
      const { result, content, workspace } = await runCall(sandbox, tool, args);
      expect(result.ok).toBe(false);
      expect(content).toMatch(
        /refused on this host because no sandbox can run .*apt-get install bubblewrap.*KESOKU_SANDBOX=off/s,
      );
      expect(fs.existsSync(path.join(workspace, 'ran.txt'))).toBe(false);
    }
  }, 60_000);

  it('a worker without a sandbox setting refuses too', async () => {
    const { result, content, workspace } = await runCall(undefined, 'run_shell_command', {
      command: 'echo ran > ran.txt',
    });
    expect(result.ok).toBe(false);
    expect(content).toMatch(/^Error: tools are not available/);
    expect(fs.existsSync(path.join(workspace, 'ran.txt'))).toBe(false);
  });

  it('mode required: the worker does not start', async () => {
    await expect(prepareSandbox({ ...broken(), mode: 'required' })).rejects.toBeInstanceOf(
      SandboxUnavailableError,
    );
  });

  it('KESOKU_SANDBOX=off: tools run, unsandboxed, with the allowlisted environment', async () => {
    const sandbox = await prepareSandbox(defaultSandboxSettings(dataDir, { mode: 'off' }));
    process.env.DB_PASS = 'planted-in-worker-env';
    try {
      const { result, content } = await runCall(sandbox, 'run_shell_command', { command: 'env; echo ran' });
      expect(result.ok).toBe(true);
      expect(content).toContain('ran');
      expect(content).not.toContain('planted-in-worker-env');
    } finally {
      delete process.env.DB_PASS;
    }
  });
});
