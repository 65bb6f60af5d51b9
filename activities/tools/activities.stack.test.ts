/**
 * The tool activity runs a command at most once per tool call (MockActivityEnvironment for the activity
 * context, real Postgres for the tool_runs record and the messages): a retry that finds the call started
 * without a result does not run it again and kills what the earlier attempt left behind; a result that could
 * not be stored is kept in the heartbeat checkpoint and only stored by the retry; read_file may run again; a
 * worker stopped past its drain time stores an "interrupted" result.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ActivityCancellationDetails, ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { commit, getMessage } from '../../db/messages.ts';
import { createPool, type Pool } from '../../db/pool.ts';
import { ensureSession } from '../../db/sessions.ts';
import { toolCall } from '../../domain/factories.ts';
import { createLogger } from '../../infra/logger.ts';
import { createToolActivities, resultIdOf, workspaceDirFor, type ToolCheckpoint } from './activities.ts';
import { offSandbox } from '../../test/support/sandbox.ts';
import {
  getToolRun,
  killLeftover,
  processStartTicks,
  recordRunProcess,
  recordRunStarted,
  workerHostId,
} from './runs.ts';

let pool: Pool;
let dataDir: string;
const logger = createLogger('test', 'silent');
let n = 0;

beforeAll(() => {
  pool = createPool(inject('databaseUrl'));
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-tool-act-'));
});
afterAll(async () => {
  await pool.end();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A session with one stored tool_call; returns the activity input and the session's workspace. */
async function storedCall(tool: string, args: Record<string, unknown>) {
  n += 1;
  const sessionId = `tool-act-${process.pid}-${Date.now().toString(36)}-${n}`;
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

const linesOf = (file: string) =>
  fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;

/** A pool whose queries and connections fail while `down.value` is true (a Postgres outage). */
function flakyPool(real: Pool, down: { value: boolean }): Pool {
  return new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'query' || prop === 'connect') {
        return (...args: unknown[]) => {
          if (down.value) return Promise.reject(new Error('connection terminated unexpectedly'));
          return (Reflect.get(target, prop, receiver) as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

type CallResult = { resultId: string; ok: boolean; summary: string };

const activities = (p: Pool = pool, extra: { storeResultForMs?: number } = {}) =>
  createToolActivities({
    pool: p,
    logger,
    dataDir,
    defaultTimeoutMs: 30_000,
    heartbeatIntervalMs: 50,
    sandbox: offSandbox(dataDir),
    ...extra,
  });

describe('tool activity: a command runs at most once', () => {
  it('runs the command once, keeps its result in tool_runs, and a repeated call returns the stored result', async () => {
    const { input, workspace } = await storedCall('run_shell_command', {
      command: 'echo run >> runs.txt; echo done',
    });
    const first: CallResult = await new MockActivityEnvironment().run(activities().runToolCall, input);
    expect(first).toMatchObject({ ok: true, summary: 'done' });
    const again: CallResult = await new MockActivityEnvironment({ attempt: 2 }).run(
      activities().runToolCall,
      input,
    );
    expect(again).toEqual(first);
    expect(linesOf(path.join(workspace, 'runs.txt'))).toBe(1);
    const run = await getToolRun(pool, input.toolCallMessageId);
    expect(run).toMatchObject({ status: 'finished', hostId: workerHostId(), attempt: 1 });
    expect(run?.process?.pid).toBeGreaterThan(0);
    expect(run?.outcome?.result.summary).toBe('done');
  });

  it('a retry that finds the call started without a result does not run it again and kills the leftover group', async () => {
    const { input, workspace } = await storedCall('run_shell_command', { command: 'echo run >> runs.txt' });
    // The earlier attempt's command: still running in its own process group on this host.
    const leftover = spawn('/bin/sh', ['-c', 'sleep 60'], { detached: true, stdio: 'ignore' });
    const pid = leftover.pid!;
    const exited = new Promise<void>((r) => leftover.once('exit', () => r()));
    await recordRunStarted(pool, {
      toolCallMessageId: input.toolCallMessageId,
      sessionId: input.sessionId,
      toolName: 'run_shell_command',
      attempt: 1,
    });
    await recordRunProcess(pool, input.toolCallMessageId, {
      hostId: workerHostId(),
      pid,
      pgid: pid,
      startTicks: processStartTicks(pid),
    });

    const result: CallResult = await new MockActivityEnvironment({ attempt: 2 }).run(
      activities().runToolCall,
      input,
    );
    expect(result).toMatchObject({ ok: false, summary: 'interrupted by a worker stop; not re-run' });
    await exited; // killed by the retry
    expect(leftover.signalCode).toBe('SIGKILL');
    expect(linesOf(path.join(workspace, 'runs.txt'))).toBe(0);
    const stored = await getMessage(pool, resultIdOf(input.toolCallMessageId));
    expect(stored?.content).toMatch(/interrupted by a worker stop and was not run again/);
    expect(stored?.content).toMatch(/have been killed/);
    expect((await getToolRun(pool, input.toolCallMessageId))?.status).toBe('interrupted');
  });

  it('a retry whose recorded pid now belongs to another process leaves that process alive', async () => {
    // An unrelated process group leader holding the recorded pid, as after a restart renumbered the pids: the
    // record's start time (or its missing start time) says it is not the process the earlier attempt spawned.
    for (const recorded of [
      (pid: number) => ({ pid, pgid: pid, startTicks: processStartTicks(pid)! - 1 }),
      (pid: number) => ({ pid, pgid: pid, startTicks: null }),
    ]) {
      const { input } = await storedCall('run_shell_command', { command: 'true' });
      const innocent = spawn('/bin/sh', ['-c', 'sleep 60'], { detached: true, stdio: 'ignore' });
      const pid = innocent.pid!;
      try {
        await recordRunStarted(pool, {
          toolCallMessageId: input.toolCallMessageId,
          sessionId: input.sessionId,
          toolName: 'run_shell_command',
          attempt: 1,
        });
        await recordRunProcess(pool, input.toolCallMessageId, { hostId: workerHostId(), ...recorded(pid) });
        const result: CallResult = await new MockActivityEnvironment({ attempt: 2 }).run(
          activities().runToolCall,
          input,
        );
        expect(result).toMatchObject({ ok: false, summary: 'interrupted by a worker stop; not re-run' });
        await new Promise((r) => setTimeout(r, 200));
        expect(innocent.exitCode).toBeNull();
        expect(innocent.signalCode).toBeNull();
        expect(() => process.kill(pid, 0)).not.toThrow();
        expect((await getMessage(pool, resultIdOf(input.toolCallMessageId)))?.content).not.toMatch(
          /have been killed/,
        );
      } finally {
        innocent.kill('SIGKILL');
      }
    }
  });

  it('a recorded pid whose process no longer leads the recorded group is not signalled', async () => {
    const leader = spawn('/bin/sh', ['-c', 'sleep 60'], { detached: true, stdio: 'ignore' });
    const other = spawn('/bin/sh', ['-c', 'sleep 60'], { detached: true, stdio: 'ignore' });
    try {
      const outcome = killLeftover({
        hostId: workerHostId(),
        pid: leader.pid!,
        pgid: other.pid!, // another group, unrelated to the recorded leader
        startTicks: processStartTicks(leader.pid!),
      });
      expect(outcome).toBe('already-gone');
      await new Promise((r) => setTimeout(r, 200));
      expect(leader.signalCode).toBeNull();
      expect(other.signalCode).toBeNull();
    } finally {
      leader.kill('SIGKILL');
      other.kill('SIGKILL');
    }
  });

  it('a retry on another host leaves the group alone and says it could not reach it', async () => {
    const { input } = await storedCall('write_file', { path: 'a.txt', content: 'x', append: true });
    await recordRunStarted(pool, {
      toolCallMessageId: input.toolCallMessageId,
      sessionId: input.sessionId,
      toolName: 'write_file',
      attempt: 1,
    });
    await recordRunProcess(pool, input.toolCallMessageId, {
      hostId: 'elsewhere/boot',
      pid: 1,
      pgid: 1,
      startTicks: 1,
    });
    const result: CallResult = await new MockActivityEnvironment({ attempt: 2 }).run(
      activities().runToolCall,
      input,
    );
    expect(result.ok).toBe(false);
    expect((await getMessage(pool, resultIdOf(input.toolCallMessageId)))?.content).toMatch(/another host/);
  });

  it('a result that could not be stored is checkpointed; the retry stores it without running the command', async () => {
    const { input, workspace } = await storedCall('run_shell_command', {
      command: 'echo run >> runs.txt; echo stored later',
    });
    const down = { value: false };
    const env = new MockActivityEnvironment();
    const beats: ToolCheckpoint[] = [];
    env.on('heartbeat', (d: ToolCheckpoint) => {
      beats.push(d);
      // Postgres goes away once the command has run, before its result is stored.
      if (d.phase === 'done') down.value = true;
    });
    const failed = await env
      .run(activities(flakyPool(pool, down), { storeResultForMs: 0 }).runToolCall, input)
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ApplicationFailure);
    expect((failed as ApplicationFailure).type).toBe('turn_persistence');
    expect((failed as ApplicationFailure).nonRetryable).toBe(false);
    const last = beats.at(-1)!;
    expect(last.phase).toBe('done');
    expect(linesOf(path.join(workspace, 'runs.txt'))).toBe(1);

    down.value = false;
    const retried: CallResult = await new MockActivityEnvironment({ attempt: 2, heartbeatDetails: last }).run(
      activities().runToolCall,
      input,
    );
    expect(retried).toMatchObject({ ok: true, summary: 'stored later' });
    expect(linesOf(path.join(workspace, 'runs.txt'))).toBe(1);
  });

  it('nothing is spawned when the start cannot be recorded; the retry then runs the command', async () => {
    const { input, workspace } = await storedCall('run_shell_command', { command: 'echo run >> runs.txt' });
    // The tool call and its (missing) result are read, then Postgres drops before the run is recorded.
    let queries = 0;
    const counting = new Proxy(pool, {
      get(target, prop, receiver) {
        if (prop === 'query') {
          return (...args: unknown[]) => {
            queries += 1;
            if (queries >= 3) return Promise.reject(new Error('connection terminated unexpectedly'));
            return (Reflect.get(target, prop, receiver) as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    const failed = await new MockActivityEnvironment()
      .run(activities(counting).runToolCall, input)
      .catch((e: unknown) => e);
    expect((failed as ApplicationFailure).type).toBe('turn_persistence');
    expect(linesOf(path.join(workspace, 'runs.txt'))).toBe(0);
    const retried: CallResult = await new MockActivityEnvironment({ attempt: 2 }).run(
      activities().runToolCall,
      input,
    );
    expect(retried.ok).toBe(true);
    expect(linesOf(path.join(workspace, 'runs.txt'))).toBe(1);
  });

  it('read_file changes nothing and runs again on a retry', async () => {
    const { input, workspace } = await storedCall('read_file', { path: 'notes.txt' });
    fs.writeFileSync(path.join(workspace, 'notes.txt'), 'hello');
    await recordRunStarted(pool, {
      toolCallMessageId: input.toolCallMessageId,
      sessionId: input.sessionId,
      toolName: 'read_file',
      attempt: 1,
    });
    const result: CallResult = await new MockActivityEnvironment({ attempt: 2 }).run(
      activities().runToolCall,
      input,
    );
    expect(result.ok).toBe(true);
    expect((await getMessage(pool, resultIdOf(input.toolCallMessageId)))?.content).toBe('hello');
  });

  it('a worker stopped past its drain time kills the command and stores an interrupted result', async () => {
    const { input, workspace } = await storedCall('run_shell_command', {
      command: 'echo start >> runs.txt; sleep 30; echo end >> runs.txt',
    });
    const env = new MockActivityEnvironment();
    env.on('heartbeat', (d: ToolCheckpoint) => {
      if (d.phase === 'running')
        setTimeout(
          () => env.cancel('WORKER_SHUTDOWN', new ActivityCancellationDetails({ workerShutdown: true })),
          300,
        );
    });
    const started = Date.now();
    const result: CallResult = await env.run(activities().runToolCall, input);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ ok: false, summary: 'interrupted by a worker stop; not re-run' });
    expect((await getMessage(pool, resultIdOf(input.toolCallMessageId)))?.content).toMatch(
      /drain time ran out/,
    );
    expect(fs.readFileSync(path.join(workspace, 'runs.txt'), 'utf8')).toBe('start\n');
  });
});
