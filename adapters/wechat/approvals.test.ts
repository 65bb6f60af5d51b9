// WeChat approval texts (adapters/wechat/approvals.ts) and the typed answers of the kit
// (adapters/kit/typed-approvals.ts): what the follower reads, within WeChat's byte limit, and the /help line.
import { describe, expect, it } from 'vitest';
import { createCommandDispatcher } from '../kit/command-dispatch.ts';
import { APPROVAL_COMMANDS, presentTypedDecision, type TypedDecision } from '../kit/typed-approvals.ts';
import { approvalAskText, approvalOutcomeText, presentWait } from './approvals.ts';
import { WECHAT_MAX_TEXT_BYTES } from './text.ts';
import type { Message } from '../../domain/message.ts';

const call = (toolName = 'run_shell_command') =>
  ({ id: 't1:s1:call0', sender: toolName, metadata: { tool_name: toolName } }) as unknown as Message;
const asked = (subject: string) => ({
  subject,
  requested_at: '2026-12-01T09:00:00.000Z',
  expires_at: '2026-12-01T09:10:00.000Z',
});

describe('WeChat approval request text', () => {
  it('names the call, the three answers with the /always pattern, and the timeout', () => {
    const text = approvalAskText(call(), asked('git status --short'));
    expect(text).toBe(
      '🔐 Approval needed: run_shell_command: git status --short\n' +
        'Reply /approve to run it, /deny to refuse, or /always to run it and, from now on, calls like it (git status *) without asking.\n' +
        'No answer within 10 minutes counts as /deny.',
    );
  });

  it('says an /always of a compound command approves that same command', () => {
    expect(approvalAskText(call(), asked('ls; rm -rf ~'))).toContain(
      'or /always to run it and, from now on, this same call without asking.',
    );
  });

  it('shortens a long command to fit the byte limit', () => {
    const text = approvalAskText(call(), asked(`echo ${'长'.repeat(3000)}`));
    expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(WECHAT_MAX_TEXT_BYTES);
    expect(text).toContain('…');
    expect(text).toContain('No answer within 10 minutes counts as /deny.');
  });

  it('says waits in people units', () => {
    expect(presentWait(600)).toBe('10 minutes');
    expect(presentWait(3600)).toBe('1 hour');
    expect(presentWait(90)).toBe('90 seconds');
  });
});

describe('WeChat approval outcome text', () => {
  const openId = 'oFollower';
  it('is silent while pending and for the follower’s own typed decision', () => {
    expect(approvalOutcomeText(call(), { state: 'pending', subject: 'ls' }, openId)).toBeNull();
    expect(
      approvalOutcomeText(call(), { state: 'approved', subject: 'ls', by: `wechat:${openId}` }, openId),
    ).toBeNull();
  });

  it('tells a decision by someone else, a timeout and the end of the turn', () => {
    expect(approvalOutcomeText(call(), { state: 'denied', subject: 'ls', by: 'api:alice' }, openId)).toBe(
      '❌ Denied by api:alice, not run: run_shell_command: ls',
    );
    expect(approvalOutcomeText(call(), { state: 'timed_out', subject: 'ls', by: 'timeout' }, openId)).toBe(
      '⌛ Nobody answered in time, not run: run_shell_command: ls',
    );
    expect(approvalOutcomeText(call(), { state: 'cancelled', subject: 'ls' }, openId)).toMatch(
      /^⏹️ No longer waiting \(the turn ended\), not run/,
    );
  });
});

describe('typed approval answers', () => {
  const decided = (decision: 'approve' | 'deny' | 'always'): TypedDecision => ({
    kind: 'decided',
    decision,
    call: { call_id: 'c', tool_name: 'run_shell_command', subject: 'ls -la' },
  });

  it('name the decided call', () => {
    expect(presentTypedDecision(decided('approve'))).toBe('✅ Approved: `run_shell_command: ls -la`');
    expect(presentTypedDecision(decided('deny'))).toBe('❌ Denied: `run_shell_command: ls -la`');
    expect(presentTypedDecision(decided('always'))).toContain('From now on `ls *` runs without asking');
    expect(presentTypedDecision({ kind: 'nothing_pending' })).toBe('Nothing is waiting for your approval.');
  });

  it('run as local commands with the sender, and show in /help only where decidePending exists', async () => {
    const calls: unknown[] = [];
    const sessions = {
      stop: () => Promise.resolve({ stopped: false }),
      compact: () => Promise.resolve({}),
      setTitle: (_s: string, title: string) => Promise.resolve({ title }),
      setMode: (_s: string, mode: 'queue' | 'interrupt') => Promise.resolve({ mode }),
      decidePending(sessionId: string, decision: string, o: unknown) {
        calls.push({ sessionId, decision, o });
        return Promise.resolve({ kind: 'nothing_pending' } as const);
      },
    } as unknown as Parameters<typeof createCommandDispatcher>[0]['sessions'];
    const d = createCommandDispatcher({ sessions, local: APPROVAL_COMMANDS });
    expect(await d.dispatch('/Approve', 's1', 'u1', 'alice')).toBe('Nothing is waiting for your approval.');
    expect(calls).toEqual([{ sessionId: 's1', decision: 'approve', o: { updateId: 'u1', sender: 'alice' } }]);
    expect(await d.dispatch('/approve now please', 's1')).toBeNull();
    expect(await d.dispatch('/help', 's1')).toContain('`/approve`, `/deny`, `/always`');

    const without = createCommandDispatcher({ sessions: { ...sessions, decidePending: undefined } });
    expect(await without.dispatch('/approve', 's1')).toBeNull();
    expect(await without.dispatch('/help', 's1')).not.toContain('/approve');
  });
});
