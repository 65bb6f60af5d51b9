/**
 * The channel kit's command dispatch (adapters/kit/command-dispatch.ts): parse → handler → answer text, the same
 * for every chat channel; a channel's own bare commands come from its own table; failures become text.
 */
import { describe, expect, it } from 'vitest';
import {
  SESSION_COMMAND_HANDLERS,
  createCommandDispatcher,
  type CommandSessions,
} from './command-dispatch.ts';
import { SESSION_COMMANDS } from './commands.ts';
import { SessionClientError } from '../../infra/session-client.ts';

/** Sessions that record every call and answer like a running session. */
function recordingSessions(overrides: Partial<CommandSessions> = {}) {
  const calls: unknown[][] = [];
  const sessions: CommandSessions = {
    stop: async (...a) => (calls.push(['stop', ...a]), { stopped: true }),
    compact: async (...a) => (calls.push(['compact', ...a]), { queued: true }) as never,
    setTitle: async (...a) => (calls.push(['setTitle', ...a]), { title: a[1] }) as never,
    setMode: async (...a) => (calls.push(['setMode', ...a]), { mode: a[1] }) as never,
    setLocale: async (...a) => (calls.push(['setLocale', ...a]), { locale: a[1] }),
    setApproval: async (...a) => void calls.push(['setApproval', ...a]),
    ...overrides,
  };
  return { sessions, calls };
}

describe('command dispatch', () => {
  it('has one handler per session command of the kit parser', () => {
    expect(Object.keys(SESSION_COMMAND_HANDLERS).sort()).toEqual([...SESSION_COMMANDS].sort());
  });

  it('runs a whole-message command with the update id and answers; ordinary text gives null', async () => {
    const { sessions, calls } = recordingSessions();
    const d = createCommandDispatcher({ sessions });
    expect(await d.dispatch('/stop', 's1', 'u1')).toBe('⏹️ Stopping the current turn.');
    expect(await d.dispatch('/mode queue', 's1', 'u2')).toContain('Mode: queue');
    expect(await d.dispatch('/title  Weekly ', 's1')).toBe('📝 Title set: Weekly');
    expect(await d.dispatch('/locale zh', 's1')).toContain('中文');
    expect(await d.dispatch('/approval all', 's1')).toContain('Approval: all');
    expect(await d.dispatch('/mode fast', 's1')).toBe('Usage: `/mode interrupt` or `/mode queue`.');
    expect(calls).toEqual([
      ['stop', 's1', { updateId: 'u1' }],
      ['setMode', 's1', 'queue', { updateId: 'u2' }],
      ['setTitle', 's1', 'Weekly', {}],
      ['setLocale', 's1', 'zh'],
      ['setApproval', 's1', 'all'],
    ]);
    for (const text of ['hello', '/stop the nginx service', '/etc/hosts lacks a line', '/hlep']) {
      expect(d.parse(text), text).toBeNull();
      expect(await d.dispatch(text, 's1'), text).toBeNull();
    }
    expect(calls).toHaveLength(5);
  });

  it("takes a channel's own bare commands from its table, on top of the kit's /new, /status and /help", async () => {
    const { sessions } = recordingSessions();
    const seen: string[] = [];
    const d = createCommandDispatcher({
      sessions,
      local: { whoami: async ({ sessionId }) => (seen.push(sessionId), `you are in ${sessionId}`) },
    });
    expect(d.parse('/WHOAMI')).toEqual({ name: 'local', command: 'whoami' });
    expect(await d.dispatch('/whoami', 's9')).toBe('you are in s9');
    expect(seen).toEqual(['s9']);
    expect(d.parse('/whoami now')).toBeNull();
    expect(createCommandDispatcher({ sessions }).parse('/whoami')).toBeNull();
    // The kit's own: without `state` and `newConversation` they say so; /help lists what this channel serves.
    expect(await d.dispatch('/status', 's9')).toBe('⚠️ `/status` is not available here.');
    expect(await d.dispatch('/new', 's9')).toBe('⚠️ `/new` is not available here.');
    const help = await d.dispatch('/help', 's9');
    expect(help).toContain('`/stop`');
    expect(help).not.toContain('`/new`');
  });

  it('turns a missing session and failures into text, and names commands this channel lacks', async () => {
    const notFound = new SessionClientError('not_found', 'no session');
    const { sessions } = recordingSessions({
      stop: () => Promise.reject(notFound),
      compact: () => Promise.reject(notFound),
      setMode: () => Promise.reject(new SessionClientError('unavailable', 'temporal down')),
      setLocale: undefined,
    });
    const d = createCommandDispatcher({ sessions });
    expect(await d.dispatch('/stop', 's')).toBe('Nothing is running.');
    expect(await d.dispatch('/compact', 's')).toBe(
      'There is no conversation here yet: send a message first.',
    );
    expect(await d.dispatch('/mode queue', 's')).toContain('not reachable');
    expect(await d.dispatch('/locale en', 's')).toBe('⚠️ `/locale` is not available here.');
  });
});

describe('/approval in a shared place', () => {
  const shared = (approver: boolean) => ({ id: 'u1', shared: true, approver });

  it('refuses a non-approver who loosens the policy, lets them tighten it, and lets approvers and DMs loosen', async () => {
    let policy: 'off' | 'writes' | 'all' = 'all';
    const { sessions, calls } = recordingSessions({
      approvalPolicy: async () => policy,
      setApproval: async (_s, p) => void (policy = p),
    });
    const d = createCommandDispatcher({ sessions });
    expect(await d.dispatch('/approval off', 's1', undefined, shared(false))).toContain('Only an approver');
    expect(await d.dispatch('/approval writes', 's1', undefined, shared(false))).toContain(
      'Only an approver',
    );
    expect(policy).toBe('all');
    expect(await d.dispatch('/approval all', 's1', undefined, shared(false))).toContain('Approval: all');
    expect(await d.dispatch('/approval writes', 's1', undefined, shared(true))).toContain('Approval: writes');
    expect(await d.dispatch('/approval all', 's1', undefined, shared(false))).toContain('Approval: all');
    expect(
      await d.dispatch('/approval off', 's1', undefined, { id: 'u1', shared: false, approver: false }),
    ).toContain('Approval: off');
    // Tightening from off is anyone's.
    expect(await d.dispatch('/approval writes', 's1', undefined, shared(false))).toContain(
      'Approval: writes',
    );
    expect(policy).toBe('writes');
    expect(calls).toEqual([]);
  });

  it('without the current policy, a non-approver in a shared place may only set all', async () => {
    const { sessions, calls } = recordingSessions();
    const d = createCommandDispatcher({ sessions });
    expect(await d.dispatch('/approval writes', 's1', undefined, shared(false))).toContain(
      'Only an approver',
    );
    expect(await d.dispatch('/approval all', 's1', undefined, shared(false))).toContain('Approval: all');
    expect(calls).toEqual([['setApproval', 's1', 'all']]);
  });
});
