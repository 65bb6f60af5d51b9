// Discord approval buttons, the platform-neutral part: the message payload, custom ids, who may click, and
// what a click leads to.
import { describe, expect, it } from 'vitest';
import {
  approvalCustomId,
  approvalMessage,
  handleApprovalClick,
  outcomeMessage,
  parseApprovalCustomId,
} from './approvals.ts';
import { SessionClientError } from '../../infra/session-client.ts';

const ask = {
  callId: 'm-1:s0:call0',
  toolName: 'run_shell_command',
  subject: 'rm -rf build',
  expiresAt: '2026-12-01T10:00:00.000Z',
};

describe('discord approval buttons', () => {
  it('the message has Approve / Deny / Always buttons whose custom ids carry decision and call', () => {
    const m = approvalMessage(ask);
    expect(m.content).toContain('rm -rf build');
    expect(m.content).toContain('<t:1796119200:R>');
    expect(m.allowed_mentions).toEqual({ parse: [] });
    const row = m.components[0] as { type: number; components: { label: string; custom_id: string }[] };
    expect(row.type).toBe(1);
    expect(row.components.map((b) => b.label)).toEqual(['Approve', 'Deny', 'Always']);
    expect(row.components.map((b) => parseApprovalCustomId(b.custom_id))).toEqual([
      { decision: 'approve', callId: 'm-1:s0:call0' },
      { decision: 'deny', callId: 'm-1:s0:call0' },
      { decision: 'always', callId: 'm-1:s0:call0' },
    ]);
    expect(parseApprovalCustomId('kesoku:approval:maybe:x')).toBeNull();
    expect(parseApprovalCustomId('other:button')).toBeNull();
    expect(approvalCustomId('approve', 'x'.repeat(100))).toBeNull();
  });

  it('a click by the requester decides and edits the message; anyone else is refused and nothing is sent', async () => {
    const sent: string[] = [];
    const decide = async (callId: string, decision: string, by: string) => {
      sent.push(`${callId} ${decision} ${by}`);
    };
    const refused = await handleApprovalClick({
      ask,
      decision: 'approve',
      userId: 'stranger',
      requesterId: 'u1',
      approvers: ['ops'],
      decide,
    });
    expect(refused).toMatchObject({ kind: 'refused' });
    expect(sent).toEqual([]);

    const byApprover = await handleApprovalClick({
      ask,
      decision: 'deny',
      userId: 'ops',
      requesterId: 'u1',
      approvers: ['ops'],
      decide,
    });
    expect(byApprover).toMatchObject({ kind: 'decided' });
    expect(sent).toEqual(['m-1:s0:call0 deny discord:ops']);
    if (byApprover.kind === 'decided') {
      expect(byApprover.edit.components).toEqual([]);
      expect(byApprover.edit.content).toContain('❌ Denied by <@ops>');
    }

    const late = await handleApprovalClick({
      ask,
      decision: 'approve',
      userId: 'u1',
      requesterId: 'u1',
      approvers: [],
      decide: async () => {
        throw new SessionClientError('not_pending', 'decided');
      },
    });
    expect(late).toMatchObject({ kind: 'not_pending' });
  });

  it('the edit once the wait ended says how, for every ending, and removes the buttons', () => {
    const text = (a: Parameters<typeof outcomeMessage>[1]) => {
      const m = outcomeMessage(ask, a);
      expect(m.components).toEqual([]);
      expect(m.allowed_mentions).toEqual({ parse: [] });
      expect(m.content).toContain('rm -rf build');
      return m.content.split('\n').at(-1);
    };
    expect(text({ state: 'approved', by: 'discord:42', decision: 'approve' })).toBe('✅ Approved by <@42>.');
    expect(text({ state: 'approved', by: 'discord:42', decision: 'always' })).toBe(
      '✅ Approved (always) by <@42>.',
    );
    expect(text({ state: 'approved', by: 'pattern', pattern: 'rm *' })).toBe(
      '✅ Approved by the pattern `rm *`.',
    );
    expect(text({ state: 'denied', by: 'api:alice', decision: 'deny' })).toBe('❌ Denied by `api:alice`.');
    expect(text({ state: 'timed_out', by: 'timeout' })).toBe('⌛ Nobody decided in time: not run.');
    expect(text({ state: 'cancelled', by: 'stop' })).toBe('⏹️ Not decided: the turn ended.');
  });
});

describe('discord approval message size and ids', () => {
  it('stays one message of at most 2000 characters (with a mention) for a long command, saying it was shortened', () => {
    for (const subject of ['x'.repeat(5000), '```'.repeat(600), '😀'.repeat(1200)]) {
      const long = { ...ask, subject };
      const m = approvalMessage(long);
      expect(m.content.length + '<@123456789012345678> '.length).toBeLessThanOrEqual(2000);
      expect(m.content).toContain('the full command is in the Web UI');
      expect(m.content).toContain('<t:1796119200:R>');
      expect(m.content).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
      const out = outcomeMessage(long, { state: 'approved', by: 'pattern', pattern: subject });
      expect(out.content.length).toBeLessThanOrEqual(2000 - 32);
      expect(out.content).toContain('Approved by the pattern');
    }
    expect(approvalMessage(ask).content).not.toContain('shortened');
  });

  it('never posts a button without a custom id: a call id too long gets text saying where to decide', () => {
    const m = approvalMessage({ ...ask, callId: 'c'.repeat(100) });
    expect(m.components).toEqual([]);
    expect(m.content).toContain('cannot be decided with buttons');
    expect(m.content).toContain('/tool-calls/{callId}/approval');
  });
});
