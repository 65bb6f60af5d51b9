import { describe, expect, it } from 'vitest';
import {
  alwaysPatternFor,
  approvalNeed,
  approvalPolicyInForce,
  approvalSubject,
  defaultApprovalPolicy,
  matchesPattern,
  policyAsks,
} from './tool-approval.ts';

describe('approval policy', () => {
  it('writes asks for shell commands and file writes, never for read_file; all asks for everything', () => {
    expect(policyAsks('writes', 'run_shell_command')).toBe(true);
    expect(policyAsks('writes', 'write_file')).toBe(true);
    expect(policyAsks('writes', 'read_file')).toBe(false);
    expect(policyAsks('all', 'read_file')).toBe(true);
    expect(policyAsks('off', 'run_shell_command')).toBe(false);
  });

  it('a chatbot whose people can decide where they talk defaults to writes, any other to off', () => {
    expect(defaultApprovalPolicy(true)).toBe('writes');
    expect(defaultApprovalPolicy(false)).toBe('off');
  });

  it('the policy in force: the session’s own, else KESOKU_TOOL_APPROVAL, else the channel’s default', () => {
    expect(approvalPolicyInForce('all', 'off', 'off')).toBe('all');
    expect(approvalPolicyInForce(null, 'all', 'off')).toBe('all');
    expect(approvalPolicyInForce(undefined, 'off', 'writes')).toBe('off');
    expect(approvalPolicyInForce(null, undefined, 'writes')).toBe('writes');
    expect(approvalPolicyInForce(null, undefined, 'off')).toBe('off');
  });

  it('the subject is the command of a shell call and `<tool> <path>` of a file call', () => {
    expect(approvalSubject('run_shell_command', { command: 'ls -la' })).toBe('ls -la');
    expect(approvalSubject('run_shell_command', '{"command":"git status"}')).toBe('git status');
    expect(approvalSubject('write_file', { path: 'a/b.txt', content: 'x' })).toBe('write_file a/b.txt');
  });
});

describe('auto-approve patterns', () => {
  it('`*` matches arguments but never shell operators or substitutions', () => {
    expect(matchesPattern('ls *', 'ls -la src')).toBe(true);
    expect(matchesPattern('ls *', 'ls')).toBe(true);
    expect(matchesPattern('ls *', 'lsof -i')).toBe(false);
    expect(matchesPattern('ls *', 'ls; rm -rf ~')).toBe(false);
    expect(matchesPattern('ls *', 'ls $(rm -rf ~)')).toBe(false);
    expect(matchesPattern('ls *', 'ls && curl evil')).toBe(false);
    expect(matchesPattern('ls *', 'ls > out')).toBe(false);
    expect(matchesPattern('ls *', 'ls\nrm x')).toBe(false);
    expect(matchesPattern('git status', 'git status')).toBe(true);
    expect(matchesPattern('git status', 'git status --short')).toBe(false);
    expect(matchesPattern('echo a > out.txt', 'echo a > out.txt')).toBe(true);
  });

  it('always keeps the program (and the sub-command of git, kubectl); a compound command or a runner stays exact', () => {
    expect(alwaysPatternFor('run_shell_command', 'ls -la')).toBe('ls *');
    expect(alwaysPatternFor('run_shell_command', 'git status --short')).toBe('git status *');
    expect(alwaysPatternFor('run_shell_command', 'npm test')).toBe('npm test');
    expect(alwaysPatternFor('run_shell_command', 'echo a; rm b')).toBe('echo a; rm b');
    expect(alwaysPatternFor('write_file', 'write_file notes.md')).toBe('write_file *');
  });

  it('always remembers launchers, interpreters, runners and compilers beyond the common ones exactly; a wildcard never approves them', () => {
    const launchers = [
      ['unbuffer ls', "unbuffer sh -c 'rm -rf ~'"],
      ['watchexec --version', "watchexec -- sh -c 'rm -rf ~'"],
      ['nodemon --version', "nodemon --exec 'sh -c id' x.js"],
      ['elixir --version', 'elixir -e System.halt'],
      ['ansible --version', "ansible localhost -m shell -a 'rm -rf ~'"],
      ['gcc --version', 'gcc -wrapper sh,-c,id x.c'],
      ['less README.md', 'less +!id README.md'],
      ['tox --version', 'tox -e py'],
      ['terraform version', 'terraform apply -auto-approve'],
    ] as const;
    for (const [approved, next] of launchers) {
      expect(alwaysPatternFor('run_shell_command', approved), approved).toBe(approved);
      const program = approved.split(' ')[0]!;
      expect(matchesPattern(`${program} *`, next), next).toBe(false);
    }
  });

  it('a matching pattern approves a call the policy would ask about', () => {
    expect(approvalNeed('writes', ['git status'], 'run_shell_command', 'git status')).toEqual({
      kind: 'auto_approved',
      pattern: 'git status',
    });
    expect(approvalNeed('writes', ['ls *'], 'run_shell_command', 'rm -rf x')).toEqual({ kind: 'required' });
    expect(approvalNeed('off', [], 'run_shell_command', 'rm -rf x')).toEqual({ kind: 'not_required' });
  });
});
