/**
 * The session's state class with fake ports (no Temporal): admission, stop as an ordering point, interrupts,
 * handler error paths (a handler never throws anything but a typed update failure; the signal never throws),
 * bounded cleanup (problems recorded, the queue moves on) and restore.
 */
import { describe, expect, it } from 'vitest';
import type { InboundMessage, QueueItem, SeenCommand, SessionWorkflowInput } from './definitions.ts';
import { SessionManager, type SessionPorts } from './session-state.ts';
import type { TurnEnd, TurnInput } from './turn.ts';
import type { Message } from '../domain/message.ts';

class Typed extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}
class Cancelled extends Error {}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const msg = (id: string): InboundMessage => ({
  id,
  content: `hello ${id}`,
  sender: 'u',
  receivedAt: '2026-01-01T00:00:00Z',
});
const stored = (id: string, status = 'pending_agent') => ({
  message: { id, status } as unknown as Message,
  created: true,
});

/** `db` stands for the sessions row's kept command answers, shared by the harnesses of one session's runs. */
function harness(input: Partial<SessionWorkflowInput> = {}, db: { kept: SeenCommand[] } = { kept: [] }) {
  const calls: string[] = [];
  const accepts = new Map<string, ReturnType<typeof deferred<ReturnType<typeof stored>>>>();
  const turns: { input: TurnInput; done: ReturnType<typeof deferred<TurnEnd>>; cancelled: boolean }[] = [];
  const shown: string[] = [];
  const ports: SessionPorts & {
    failNotice: boolean;
    failFinish: boolean;
    failReject: boolean;
    failEdit: boolean;
  } = {
    failEdit: false,
    failNotice: false,
    failFinish: false,
    failReject: false,
    handlerWrites: {
      acceptInbound: async ({ message }) => {
        calls.push(`accept ${message.id}`);
        const d = accepts.get(message.id);
        return d ? d.promise : stored(message.id);
      },
      rejectInbound: async ({ message }) => {
        calls.push(`reject ${message.id}`);
        if (ports.failReject) throw new Typed('id_taken', 'taken');
        return { noticeId: `${message.id}:rejected` };
      },
      createCompactionPrompt: async ({ id }) => ({
        message: { id, status: 'pending_agent' } as unknown as Message,
      }),
      updateSession: async () => {
        calls.push('updateSession');
      },
      requestStop: async ({ turnId }) => {
        calls.push(`requestStop ${turnId}`);
        return { marked: true };
      },
      editQueuedInput: async ({ messageId, content }) => {
        calls.push(`edit ${messageId} ${content}`);
        if (ports.failEdit) throw new Error('db down');
        return { edited: true };
      },
      withdrawQueuedInput: async ({ messageId }) => {
        calls.push(`withdraw ${messageId}`);
        if (ports.failEdit) throw new Error('db down');
        return { withdrawn: true };
      },
    },
    turnWrites: {
      supersede: async ({ messageIds }) => void calls.push(`supersede ${messageIds.join(',')}`),
      finishTurn: async ({ turnId, result }) => {
        calls.push(`finish ${turnId} ${result.outcome}`);
        if (ports.failFinish) throw new Error('IllegalTransitionError');
        return { noticeId: `${turnId}:notice`, partialIds: [`${turnId}:0:partial`], turnCount: 7 };
      },
      restoreSession: async () => ({
        found: true,
        mode: 'queue' as const,
        title: 'kept',
        titleSource: 'user' as const,
        turnCount: 3,
        queue: [{ messageId: 'open', kind: 'user' as const }],
        noticeIds: ['cut:notice'],
        ...(db.kept.length > 0 ? { seenCommands: db.kept } : {}),
      }),
      keepSeenCommands: async ({ commands }) => {
        calls.push(`keep ${commands.map((c) => c.updateId).join(',')}`);
        db.kept = commands;
      },
    },
    deliverNotice: async (id) => {
      calls.push(`notice ${id}`);
      if (ports.failNotice) throw new Error('channel refuses');
    },
    cancellable: <T>(fn: () => Promise<T>) => {
      const result = fn();
      return {
        cancel: () => {
          const t = turns.at(-1);
          if (t) {
            t.cancelled = true;
            t.done.reject(new Cancelled('cancelled'));
          }
        },
        result,
      };
    },
    nonCancellable: (fn) => fn(),
    isCancellation: (err) => err instanceof Cancelled,
    failureOutcome: () => ({ outcome: 'error', kind: 'provider' }),
    runTurn: (i) => {
      const done = deferred<TurnEnd>();
      turns.push({ input: i, done, cancelled: false });
      return done.promise;
    },
    endTyping: async () => undefined,
    sleep: async (ms) => void calls.push(`sleep ${ms}`),
    patched: () => true,
    countProblem: (what) => void calls.push(`problem ${what}`),
    show: (status, details) => void shown.push(`${status}: ${details}`),
    fail: (type, message) => new Typed(type, message),
    uuid: () => 'uuid',
    now: () => new Date('2026-01-01T00:00:00Z'),
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
  };
  const session = new SessionManager(
    { sessionId: 's', chatbotId: 'api', channelId: 's', queue: [], ...input },
    ports,
  );
  return { session, ports, calls, accepts, turns, shown };
}

async function startTurn(
  h: ReturnType<typeof harness>,
): Promise<{ item: QueueItem; ended: Promise<string> }> {
  const item = await h.session.next();
  if (!item) throw new Error('nothing queued');
  const ended = h.session.runTurn(item);
  await Promise.resolve();
  return { item, ended };
}

describe('SessionManager', () => {
  it('queues a submitted message and answers a repeat as a duplicate without queueing it twice', async () => {
    const h = harness();
    expect((await h.session.submit(msg('a'))).queue_position).toBe(0);
    const again = await h.session.submit(msg('a'));
    expect(again.duplicate).toBe(true);
    expect(h.session.queue.length).toBe(1);
  });

  it('fails the update with a typed failure and frees the slot when the message cannot be stored', async () => {
    const h = harness();
    h.ports.handlerWrites.acceptInbound = async () => {
      throw new Typed('ActivityFailure', 'db down');
    };
    await expect(h.session.submit(msg('a'))).rejects.toMatchObject({ type: 'input_persistence' });
    expect(h.session.queue.isSeen('a')).toBe(false);
    h.ports.handlerWrites.acceptInbound = async () => {
      throw Object.assign(new Error('activity failed'), { cause: new Typed('id_taken', 'taken') });
    };
    await expect(h.session.submit(msg('b'))).rejects.toMatchObject({ type: 'id_taken' });
  });

  it('the userMessage signal never throws: a failed queue-full write is recorded and the session goes on', async () => {
    const h = harness();
    for (let i = 0; i < 32; i++) await h.session.submit(msg(`m${i}`));
    h.ports.failReject = true;
    await expect(h.session.receiveSignal(msg('over'))).resolves.toBeUndefined();
    expect(h.session.state().recentProblems).toMatchObject([{ what: 'signal', messageId: 'over' }]);
    h.ports.handlerWrites.acceptInbound = async () => {
      throw new Error('db down');
    };
    await expect(h.session.receiveSignal(msg('x'))).resolves.toBeUndefined();
    await expect(h.session.receiveSignal(null as unknown as InboundMessage)).resolves.toBeUndefined();
  });

  it('validators throw typed failures for a bad message, a full queue, a bad title and a bad mode', () => {
    const h = harness();
    expect(() => h.session.validateSubmit({ ...msg('a'), content: '' })).toThrow(
      expect.objectContaining({ type: 'invalid_message' }),
    );
    expect(() => h.session.validateTitle('  ')).toThrow(expect.objectContaining({ type: 'invalid_message' }));
    expect(() => h.session.validateMode('loud')).toThrow(
      expect.objectContaining({ type: 'invalid_message' }),
    );
  });

  it('a setting that cannot be stored fails with input_persistence and changes nothing', async () => {
    const h = harness();
    h.ports.handlerWrites.updateSession = async () => {
      throw new Error('db down');
    };
    await expect(h.session.setMode('queue')).rejects.toMatchObject({ type: 'input_persistence' });
    expect(h.session.mode).toBe('interrupt');
  });

  it('a /stop while the previous message is still being stored stops that message: it is never run', async () => {
    const h = harness();
    const slow = deferred<ReturnType<typeof stored>>();
    h.accepts.set('a', slow);
    const submitted = h.session.submit(msg('a'));
    expect(h.session.stop()).toEqual({ stopped: true });
    slow.resolve(stored('a'));
    await submitted;
    expect(await h.session.next()).toBeNull();
    expect(h.calls).toContain('supersede a');
    expect(h.turns).toHaveLength(0);
    // A message after the stop runs.
    await h.session.submit(msg('b'));
    expect((await h.session.next())?.messageId).toBe('b');
  });

  it('/stop cancels the running turn and the turn ends interrupted with its partial answer delivered before the notice', async () => {
    const h = harness();
    await h.session.submit(msg('a'));
    const { ended } = await startTurn(h);
    expect(h.turns[0]?.input.stopRequested()).toBe(false);
    expect(h.session.stop().stopped).toBe(true);
    expect(h.turns[0]?.input.stopRequested()).toBe(true);
    expect(h.calls).toContain('requestStop a');
    expect(await ended).toBe('interrupted');
    expect(h.calls.filter((c) => c.startsWith('finish') || c.startsWith('notice'))).toEqual([
      'finish a interrupted',
      'notice a:0:partial',
      'notice a:notice',
    ]);
    expect(h.session.current).toBeNull();
  });

  it('a scheduled (cron) prompt never interrupts a running turn, is never superseded, and its own turn is not interrupted', async () => {
    const h = harness();
    await h.session.submit(msg('a'));
    const first = await startTurn(h);
    await h.session.submit({ ...msg('cron1'), kind: 'cron', sender: 'Cronjob' });
    expect(h.turns[0]?.cancelled).toBe(false);
    // A newer user message interrupts the user turn, but the queued cron prompt keeps its place.
    await h.session.submit(msg('b'));
    expect(await first.ended).toBe('interrupted');
    const cron = await startTurn(h);
    expect(cron.item).toMatchObject({ messageId: 'cron1', kind: 'cron' });
    expect(h.turns[1]?.input.kind).toBe('user');
    await h.session.submit(msg('c'));
    expect(h.turns[1]?.cancelled).toBe(false);
    h.turns[1]?.done.resolve({ ended: 'processed', turnCount: 2 });
    expect(await cron.ended).toBe('processed');
    expect(h.calls.some((c) => c.startsWith('supersede') && c.includes('cron1'))).toBe(false);
  });

  it('in interrupt mode a new message cancels the running user turn; in queue mode it waits', async () => {
    const h = harness();
    await h.session.submit(msg('a'));
    const first = await startTurn(h);
    await h.session.submit(msg('b'));
    expect(await first.ended).toBe('interrupted');
    const q = harness({ mode: 'queue' });
    await q.session.submit(msg('a'));
    await startTurn(q);
    await q.session.submit(msg('b'));
    expect(q.turns[0]?.cancelled).toBe(false);
  });

  it('a notice or turn-end write that fails for good is recorded and the next turn still runs', async () => {
    const h = harness();
    h.ports.failFinish = true;
    await h.session.submit(msg('a'));
    const { ended } = await startTurn(h);
    h.turns[0]?.done.reject(new Error('model down'));
    expect(await ended).toBe('error');
    expect(h.session.state().recentProblems.map((p) => p.what)).toEqual(['finish_turn']);
    h.ports.failFinish = false;
    h.ports.failNotice = true;
    await h.session.submit(msg('b'));
    const second = await startTurn(h);
    h.turns[1]?.done.reject(new Error('model down'));
    expect(await second.ended).toBe('error');
    expect(h.session.state().recentProblems.map((p) => p.what)).toEqual([
      'finish_turn',
      'notice_delivery',
      'notice_delivery',
    ]);
    expect(h.shown.at(-1)).toContain('last problem: notice_delivery');
  });

  it('restores settings, open inputs and notices when the run started without carried state', async () => {
    const h = harness({ queue: undefined });
    expect(h.session.restoring).toBe(true);
    await h.session.restore();
    expect(h.session.state()).toMatchObject({
      mode: 'queue',
      title: 'kept',
      titleSource: 'user',
      turnCount: 3,
      queueLength: 1,
    });
    expect(h.calls).toContain('notice cut:notice');
    expect(h.session.carry(200, 1000)).toMatchObject({
      titleSource: 'user',
      mode: 'queue',
      queue: [{ messageId: 'open' }],
    });
  });

  it('retries a failed restore until it succeeds, counting each failure, before anything runs', async () => {
    const h = harness({ queue: undefined });
    const real = h.ports.turnWrites.restoreSession;
    let failures = 2;
    h.ports.turnWrites.restoreSession = async (a) => {
      if (failures-- > 0) throw new Error('connect ECONNREFUSED');
      return real(a);
    };
    await h.session.restore();
    expect(h.calls.filter((c) => c.startsWith('problem') || c.startsWith('sleep'))).toEqual([
      'problem restore',
      'sleep 5000',
      'problem restore',
      'sleep 10000',
    ]);
    expect(h.session.state()).toMatchObject({ queueLength: 1, mode: 'queue', turnCount: 3 });
    expect(h.session.restoring).toBe(false);
  });

  it('a history recorded before the restore retry gives up after the first failure', async () => {
    const h = harness({ queue: undefined });
    h.ports.patched = () => false;
    h.ports.turnWrites.restoreSession = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    await h.session.restore();
    expect(h.calls.filter((c) => c.startsWith('problem') || c.startsWith('sleep'))).toEqual([
      'problem restore',
    ]);
  });

  it('carries a decision that arrived after the waiting turn was suspended; the next run takes it, not a second one', () => {
    const pending = {
      callId: 'call-1',
      turnId: 't1',
      name: 'run_shell_command',
      subject: 'ls',
      expiresAt: '2026-01-01T01:00:00Z',
    };
    const h = harness({ pendingApprovals: [pending] });
    h.session.suspended = { item: { messageId: 't1', kind: 'user' }, step: 1, turnStartedAt: 0, nudges: 0 };
    h.session.validateDecision({ callId: 'call-1', decision: 'approve', by: 'alice' });
    h.session.decide({ callId: 'call-1', decision: 'approve', by: 'alice' });
    const carried = h.session.carry(200, 1000);
    expect(carried.pendingDecisions).toEqual([{ callId: 'call-1', decision: 'approve', by: 'alice' }]);
    const next = harness(carried);
    expect(next.session.approvals.hasDecisionFor(['call-1'])).toBe(true);
    expect(next.session.approvals.takeDecisionsFor(['call-1'])).toEqual([
      { callId: 'call-1', decision: 'approve', by: 'alice' },
    ]);
    expect(() => next.session.validateDecision({ callId: 'call-1', decision: 'deny' })).toThrow(
      /already been decided/,
    );
  });

  it('answers a command update id once across continue-as-new', async () => {
    const h = harness();
    let runs = 0;
    const first = await h.session.once('compact', 'u-1', () => ({ queued: true, message_id: `c${++runs}` }));
    const next = harness(h.session.carry(200, 1000));
    const again = await next.session.once('compact', 'u-1', () => ({
      queued: true,
      message_id: `c${++runs}`,
    }));
    expect(again).toEqual(first);
    expect(runs).toBe(1);
    await next.session.once('compact', 'u-2', () => ({ queued: true, message_id: `c${++runs}` }));
    expect(runs).toBe(2);
  });

  it('answers a command update id once across a run that ended idle: kept in Postgres, read back by restore', async () => {
    const db = { kept: [] as SeenCommand[] };
    const h = harness({ queue: undefined }, db);
    await h.session.restore();
    let runs = 0;
    const first = await h.session.once('compact', 'u-1', () => ({ queued: true, message_id: `c${++runs}` }));
    expect(await h.session.keepSeenCommands()).toBe(true);
    // Nothing answered since: nothing to write again.
    expect(await h.session.keepSeenCommands()).toBe(false);
    expect(h.calls.filter((c) => c.startsWith('keep '))).toEqual(['keep u-1']);
    // The next run starts from Postgres; a repeated update arriving before its restore ends waits for it.
    const next = harness({ queue: undefined }, db);
    const again = next.session.once('compact', 'u-1', () => ({ queued: true, message_id: `c${++runs}` }));
    await next.session.restore();
    expect(await again).toEqual(first);
    expect(runs).toBe(1);
  });

  it('starts the title workflow at most three times while no title comes, counted across continue-as-new', () => {
    const h = harness();
    const item: QueueItem = { messageId: 'm', kind: 'user' };
    expect([1, 2].map(() => h.session.wantsTitle(item, 'processed'))).toEqual([true, true]);
    // Neither an interrupted turn nor a compaction asks, nor counts.
    expect(h.session.wantsTitle(item, 'interrupted')).toBe(false);
    expect(h.session.wantsTitle({ messageId: 'c', kind: 'compaction' }, 'processed')).toBe(false);
    const next = harness(h.session.carry(200, 1000));
    expect(next.session.wantsTitle(item, 'processed')).toBe(true);
    expect(next.session.wantsTitle(item, 'processed')).toBe(false);
    expect(harness(next.session.carry(200, 1000)).session.wantsTitle(item, 'processed')).toBe(false);
  });

  it('a title from the title workflow never replaces a user title, and the source is carried', () => {
    const h = harness();
    h.session.titleChanged('auto one');
    expect(h.session.carry(1, 1000)).toMatchObject({ title: 'auto one', titleSource: 'auto' });
    h.session.titleSource = 'user';
    h.session.titleChanged('auto two');
    expect(h.session.title).toBe('auto one');
  });

  it('in a shared channel only the same sender interrupts: another sender queues, messages without a sender interrupt', async () => {
    const from = (id: string, senderId?: string): InboundMessage => ({
      ...msg(id),
      ...(senderId ? { senderId } : {}),
    });
    const h = harness();
    await h.session.submit(from('a1', 'alice'));
    const first = await startTurn(h);
    const bob = await h.session.submit(from('b1', 'bob'));
    expect(bob.queue_position).toBe(1);
    expect(h.turns[0]?.cancelled).toBe(false);
    expect(h.calls).not.toContain('requestStop a1');
    await h.session.submit(from('a2', 'alice'));
    expect(await first.ended).toBe('interrupted');
    expect(h.calls).toContain('requestStop a1');
    // Bob's message is not superseded by Alice's newer one: both run, in arrival order.
    expect((await h.session.next())?.messageId).toBe('b1');
    expect(h.calls.some((c) => c.startsWith('supersede'))).toBe(false);
    expect(h.session.queue.items()).toEqual([{ messageId: 'a2', kind: 'user', gen: 0, senderId: 'alice' }]);

    const anon = harness();
    await anon.session.submit(from('x1', 'alice'));
    const running = await startTurn(anon);
    await anon.session.submit(from('x2'));
    expect(await running.ended).toBe('interrupted');
  });

  it('edits a queued message, refuses one a turn took, and answers unknown for an id it never saw', async () => {
    const h = harness({ mode: 'queue' });
    await h.session.submit(msg('a'));
    await h.session.submit(msg('b'));
    await startTurn(h);
    expect(await h.session.editQueued({ messageId: 'b', content: 'better b' })).toEqual({
      outcome: 'edited',
    });
    expect(h.calls).toContain('edit b better b');
    expect(await h.session.editQueued({ messageId: 'a', content: 'too late' })).toEqual({
      outcome: 'started',
    });
    expect(await h.session.editQueued({ messageId: 'zz', content: 'x' })).toEqual({ outcome: 'unknown' });
    expect(h.calls.filter((c) => c.startsWith('edit'))).toEqual(['edit b better b']);
    expect(() => h.session.validateEdit({ messageId: 'b', content: '  ' })).toThrow(/content is empty/);
    h.ports.failEdit = true;
    await expect(h.session.editQueued({ messageId: 'b', content: 'again' })).rejects.toMatchObject({
      type: 'input_persistence',
    });
  });

  it('withdraws a queued message at once (no turn can take it), and puts it back when the write fails', async () => {
    const h = harness({ mode: 'queue' });
    for (const id of ['a', 'b', 'c']) await h.session.submit(msg(id));
    await startTurn(h);
    h.ports.failEdit = true;
    await expect(h.session.withdrawQueued('b')).rejects.toMatchObject({ type: 'input_persistence' });
    expect(h.session.queue.items().map((i) => i.messageId)).toEqual(['b', 'c']);
    h.ports.failEdit = false;
    expect(await h.session.withdrawQueued('b')).toEqual({ outcome: 'withdrawn' });
    expect(h.session.queue.items().map((i) => i.messageId)).toEqual(['c']);
    expect(await h.session.withdrawQueued('b')).toEqual({ outcome: 'started' });
    expect(await h.session.withdrawQueued('a')).toEqual({ outcome: 'started' });
    expect(await h.session.withdrawQueued('nope')).toEqual({ outcome: 'unknown' });
  });
});
