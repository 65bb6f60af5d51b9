import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolInputError } from './errors.ts';
import { runTool, toolSpecs } from './registry.ts';
import type { ToolContext } from './registry.ts';
import { offSandbox } from '../../test/support/sandbox.ts';

let tmp: string;
let ctx: ToolContext;

beforeEach(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'kesoku-registry-'));
  ctx = {
    workspaceDir: path.join(tmp, 'workspace'),
    defaultTimeoutMs: 10_000,
    maxModelOutputBytes: 16 * 1024,
    maxStoredOutputBytes: 8 * 1024 * 1024,
    sandbox: offSandbox(tmp),
  };
});

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('tool specs', () => {
  it('offer run_shell_command, read_file and write_file with closed JSON Schemas', () => {
    expect(toolSpecs.map((t) => t.name)).toEqual(['run_shell_command', 'read_file', 'write_file']);
    const shell = toolSpecs[0]!;
    expect(shell.description).toMatch(/workspace/);
    expect(shell.parameters).toEqual({
      type: 'object',
      properties: {
        command: expect.objectContaining({ type: 'string', minLength: 1, maxLength: 16384 }),
        timeout_s: expect.objectContaining({
          type: 'integer',
          minimum: 1,
          description: expect.stringMatching(/at most 6900/),
        }),
        background: expect.objectContaining({ type: 'boolean' }),
      },
      required: ['command'],
      additionalProperties: false,
    });
    expect(toolSpecs[1]!.parameters).toMatchObject({ required: ['path'], additionalProperties: false });
    expect(toolSpecs[2]!.parameters).toMatchObject({
      required: ['path', 'content'],
      additionalProperties: false,
    });
    for (const spec of toolSpecs) expect(spec.parameters).not.toHaveProperty('$schema');
  });
});

describe('runTool', () => {
  it('runs a tool from an arguments object or the JSON text of one', async () => {
    const shell = await runTool('run_shell_command', { command: 'echo hi' }, ctx);
    await runTool('write_file', '{"path": "a.txt", "content": "from json"}', ctx);
    const read = await runTool('read_file', JSON.stringify({ path: 'a.txt' }), ctx);

    expect(shell.content).toBe('=== STDOUT ===\nhi\n=== STDERR ===\n');
    expect(shell.summary).toBe('hi');
    expect(read.content).toBe('from json');
  });

  it('rejects an unknown tool with the list of tools the model can use', async () => {
    const run = runTool('delete_everything', {}, ctx);

    await expect(run).rejects.toBeInstanceOf(ToolInputError);
    await expect(run).rejects.toThrow(
      'unknown tool "delete_everything"; the available tools are run_shell_command, read_file, write_file',
    );
    await expect(runTool('constructor', {}, ctx)).rejects.toBeInstanceOf(ToolInputError);
  });

  it('rejects invalid arguments with messages that say what to fix', async () => {
    await expect(runTool('run_shell_command', { command: 42 }, ctx)).rejects.toThrow(
      /^invalid arguments for run_shell_command: command: .*expected string/,
    );
    await expect(runTool('run_shell_command', { cmd: 'ls' }, ctx)).rejects.toThrow(
      /arguments: Unrecognized key: "cmd"/,
    );
    await expect(runTool('run_shell_command', undefined, ctx)).rejects.toThrow(/command:/);
    await expect(runTool('read_file', '{"path": ', ctx)).rejects.toThrow(
      /^arguments for read_file are not valid JSON/,
    );
    await expect(runTool('read_file', { path: '../etc/passwd' }, ctx)).rejects.toThrow(
      /outside the workspace/,
    );
  });
});
