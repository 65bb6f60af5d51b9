/**
 * Property-based bad-input tests of the pure message functions: random histories (any
 * order, duplicate seqs, dangling tool calls, results without calls, interleaved turns, compaction pairs, hostile
 * and huge contents) through sortHistory → buildCleanHistory → toProviderInput, the token estimate, the factories
 * against the status machine, the inbound and request validators on any JSON value, and ids as directory names.
 *
 * Pure and fast (no servers). Run sizes scale with KESOKU_FUZZ_RUNS; see test/fuzz/README.md.
 */
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpProblem, toProblem } from '../../api/problems.ts';
import {
  checkInbound,
  cursorQuery,
  intQuery,
  parseBody,
  patchSessionSchema,
  postMessageSchema,
} from '../../api/schemas.ts';
import { sessionDirName, workspaceDirFor } from '../../activities/tools/activities.ts';
import {
  buildCleanHistory,
  estimateTokens,
  findCompaction,
  selectCompactionCut,
} from '../../domain/clean-history.ts';
import {
  FIELD_MATRIX,
  backgroundAlert,
  crashNotice,
  cronPrompt,
  emptyReplyNudge,
  finalReply,
  manualCompactionPrompt,
  notification,
  systemPrompt,
  thought,
  toolCall,
  toolResult,
  userQuestion,
  type NewMessage,
} from '../../domain/factories.ts';
import { providerInvariantViolations } from '../../domain/fixtures/provider-invariants.ts';
import { PHASES, isTurnTrigger, sortHistory } from '../../domain/history.ts';
import type { Message, Status } from '../../domain/message.ts';
import { messageKind, type MessageKind } from '../../domain/message-kind.ts';
import { CHANNELS, presentationFor } from '../../domain/presentation.ts';
import { cleanTitle } from '../../domain/prompts.ts';
import { titleProblem } from '../../domain/session-settings.ts';
import { ALLOWED_TRANSITIONS, isAllowedTransition } from '../../domain/status-machine.ts';
import { INTERRUPTED_TOOL_RESULT, indexToolFlows } from '../../domain/tool-flow.ts';
import { toProviderInput } from '../../domain/transpile.ts';
import {
  MESSAGE_ID_PATTERN,
  inboundProblem,
  textProblem,
  utf8Length,
  type InboundMessage,
} from '../../domain/inbound.ts';
import {
  anyJson,
  hostileId,
  hostileText,
  historyArb,
  hugeText,
  oddValidIds,
  validSessionId,
  patchBodyArb,
  postBodyArb,
  queryValueArb,
  utf16Unit,
} from './arbitraries.ts';
import { Counters, FUZZ_STRICT, checkProperty, runs, writeReport } from './support.ts';

const FILE = 'domain';
afterAll(() => writeReport(FILE));

const check = <Ts>(name: string, property: fc.IPropertyWithHooks<Ts>, base: number, counters?: Counters) =>
  checkProperty(FILE, name, property, { numRuns: runs(base), counters });

/** Shuffles with a fast-check-provided permutation key. */
function permute<T>(items: readonly T[], keys: readonly number[]): T[] {
  return items
    .map((item, i) => ({ item, key: keys[i % Math.max(1, keys.length)] ?? 0, i }))
    .sort((a, b) => a.key - b.key || a.i - b.i)
    .map((x) => x.item);
}

const ids = (ms: readonly Message[]) => ms.map((m) => m.id);

describe('sortHistory', () => {
  it('is a permutation of its input, independent of input order, with turns contiguous and phases ordered', async () => {
    const c = new Counters();
    await check(
      'sortHistory permutation/order-independence/phases',
      fc.property(historyArb, fc.array(fc.integer(), { minLength: 1, maxLength: 40 }), (history, keys) => {
        c.add('messages', history.length);
        const sorted = sortHistory(history);
        // A permutation: the very same objects, each once.
        expect(sorted).toHaveLength(history.length);
        expect(new Set(sorted)).toEqual(new Set(history));
        // Order independence.
        expect(ids(sortHistory(permute(history, keys)))).toEqual(ids(sorted));
        expect(ids(sortHistory([...history].reverse()))).toEqual(ids(sorted));
        // Turns are contiguous; inside a turn: triggers first, then phases across the whole turn, then steps
        // ascending (null last) within a phase.
        const seenTurns = new Set<string>();
        let previous: Message | undefined;
        for (const m of sorted) {
          const sameTurn = previous !== undefined && m.turn_id !== null && previous.turn_id === m.turn_id;
          if (m.turn_id !== null && !sameTurn) {
            expect(seenTurns.has(m.turn_id), `turn ${m.turn_id} is split`).toBe(false);
            seenTurns.add(m.turn_id);
          }
          if (sameTurn && previous) {
            const [a, b] = [previous, m];
            const ta = isTurnTrigger(a) ? 0 : 1;
            const tb = isTurnTrigger(b) ? 0 : 1;
            expect(ta).toBeLessThanOrEqual(tb);
            if (ta === tb && ta === 1) {
              expect(PHASES[a.type]).toBeLessThanOrEqual(PHASES[b.type]);
              if (PHASES[a.type] === PHASES[b.type])
                expect(a.step ?? Infinity).toBeLessThanOrEqual(b.step ?? Infinity);
            }
          }
          previous = m;
        }
      }),
      800,
      c,
    );
  });
});

/** The message kinds buildCleanHistory never lets through. */
const HIDDEN_KINDS: readonly MessageKind[] = ['notification', 'system_prompt'];

describe('buildCleanHistory → toProviderInput', () => {
  it('never throws; keeps tool flows whole; the provider input alternates roles and pairs every tool call once', async () => {
    const c = new Counters();
    await check(
      'clean history + transpile invariants',
      fc.property(
        historyArb,
        fc.option(fc.constantFrom('m1', 'm2', 't0', 't1', 'nope'), { nil: null }),
        hostileText(3),
        (generated, currentTurnId, system) => {
          const history = distinctToolCallIds(generated);
          const before = JSON.stringify(history);
          const clean = buildCleanHistory(history, { currentTurnId });
          expect(JSON.stringify(history), 'the input is never mutated').toBe(before);
          c.add('clean_messages', clean.length);
          const inputIds = new Set(ids(history));
          for (const m of clean) {
            expect(HIDDEN_KINDS).not.toContain(messageKind(m));
            if (messageKind(m) === 'thought') expect(m.turn_id).toBe(currentTurnId);
            if (m.metadata?.synthetic === true && !inputIds.has(m.id)) {
              expect(m.id.endsWith(':interrupted')).toBe(true);
              expect(m.content).toBe(INTERRUPTED_TOOL_RESULT);
              c.add('synthetic_results');
            } else expect(inputIds.has(m.id), `unknown message ${m.id} in the clean history`).toBe(true);
          }
          // Tool flows whole: every call has a result, every result its call.
          const { resultOf, callOf } = indexToolFlows(clean);
          for (const m of clean) {
            if (m.type === 'tool_call') expect(resultOf.has(m.id), `call ${m.id} has no result`).toBe(true);
            if (m.type === 'tool_result') expect(callOf.has(m.id), `result ${m.id} has no call`).toBe(true);
          }
          const input = toProviderInput(clean, system);
          expect(input.system).toBe(system);
          c.add('provider_messages', input.messages.length);
          expect(providerInvariantViolations(input.messages)).toEqual([]);
          for (const pm of input.messages) expect(typeof pm.content).toBe('string');
          // No user text is lost: every non-empty user question reaches some user message.
          const userText = input.messages.filter((pm) => pm.role === 'user').map((pm) => pm.content);
          for (const m of clean) {
            if (messageKind(m) === 'user_question' && m.content !== '')
              expect(userText.some((t) => t.includes(m.content))).toBe(true);
          }
        },
      ),
      800,
      c,
    );
  });
});

/**
 * Providers give distinct tool-call ids within one response. Outside strict mode the ids are made distinct across
 * the whole history too, because a reused id is BUG-5 (covered by its own tests below).
 */
function distinctToolCallIds(history: readonly Message[]): Message[] {
  const seen = new Set<string>();
  return history.map((m) => {
    const id = m.metadata?.tool_call_id;
    if (m.type !== 'tool_call' || typeof id !== 'string' || id === '') return m;
    const scope = FUZZ_STRICT ? `${m.turn_id}:${m.step}:${id}` : id;
    if (!seen.has(scope)) {
      seen.add(scope);
      return m;
    }
    return { ...m, metadata: { ...m.metadata, tool_call_id: `${id}~${m.id}` } };
  });
}

/**
 * The well-formed turns of a generated history (ids `t<n>…`), with every tool call given a result and no
 * compaction; tool-call ids unique within a turn but free to repeat across turns.
 */
function completeTurnsOnly(history: readonly Message[]): Message[] {
  const turns = history.filter(
    (m) => /^t\d+(:|$)/.test(m.id) && m.turn_id !== null && /^t\d+$/.test(m.turn_id),
  );
  const out: Message[] = [];
  const usedInTurn = new Map<string, Set<string>>();
  for (const m of turns) {
    if (m.metadata?.is_compaction || typeof m.metadata?.compacted_through_seq === 'number') continue;
    if (m.type === 'tool_result') continue;
    let msg = m;
    if (m.type === 'tool_call') {
      const used = usedInTurn.get(m.turn_id ?? '') ?? new Set<string>();
      usedInTurn.set(m.turn_id ?? '', used);
      const id = String(m.metadata?.tool_call_id ?? '');
      const unique = id === '' || used.has(id) ? `${m.id}-own` : id;
      used.add(unique);
      msg = { ...m, metadata: { ...m.metadata, tool_call_id: unique } };
      out.push(msg, {
        ...msg,
        id: `${m.id}:result`,
        parent_id: m.id,
        sender: 'run_shell_command',
        type: 'tool_result',
        content: 'real output',
        metadata: { tool_name: 'run_shell_command', tool_result: 'ok', tool_call_id: unique },
      });
      continue;
    }
    out.push(msg);
  }
  // Keep seqs strictly increasing so no turn interleaves with another.
  return out.map((m, i) => ({ ...m, seq: i + 1 }));
}

describe('selectCompactionCut', () => {
  it('never throws and never splits a turn or a tool flow', async () => {
    const c = new Counters();
    await check(
      'compaction cut invariants',
      fc.property(
        historyArb,
        fc.option(fc.constantFrom('m1', 't0', 't1', 'nope'), { nil: null }),
        (history, keep) => {
          const sorted = sortHistory(history);
          const cut = selectCompactionCut(sorted, keep);
          if (cut === null) {
            c.add('null');
            return;
          }
          c.add('cut');
          expect(Number.isFinite(cut)).toBe(true);
          expect(history.some((m) => m.seq === cut)).toBe(true);
          const turnKey = (m: Message) => m.turn_id ?? `message:${m.seq}:${m.id}`;
          const sides = new Map<string, Set<boolean>>();
          for (const m of history)
            sides.set(turnKey(m), (sides.get(turnKey(m)) ?? new Set()).add(m.seq <= cut));
          for (const [turn, s] of sides) expect(s.size, `turn ${turn} is split by cut ${cut}`).toBe(1);
          if (keep !== null)
            for (const m of history) if (m.turn_id === keep) expect(m.seq).toBeGreaterThan(cut);
          const { resultOf } = indexToolFlows(sorted);
          const seqOf = new Map(history.map((m) => [m.id, m.seq]));
          for (const [callId, result] of resultOf)
            expect((seqOf.get(callId) ?? 0) <= cut).toBe(result.seq <= cut);
          expect(() => findCompaction(sorted)).not.toThrow();
        },
      ),
      600,
      c,
    );
  });
});

describe('estimateTokens', () => {
  const text = fc.oneof(
    { weight: 10, arbitrary: hostileText(8) },
    { weight: 1, arbitrary: fc.string({ unit: utf16Unit }) },
  );

  it('is a non-negative integer, never NaN, at most one token per code unit, and monotone under concatenation', async () => {
    await check(
      'estimateTokens bounds and monotonicity',
      fc.property(text, text, (a, b) => {
        const ta = estimateTokens(a);
        const tb = estimateTokens(b);
        const tab = estimateTokens(a + b);
        for (const t of [ta, tb, tab]) {
          expect(Number.isInteger(t)).toBe(true);
          expect(t).toBeGreaterThanOrEqual(0);
        }
        expect(ta).toBeLessThanOrEqual(a.length);
        expect(ta === 0).toBe(a.length === 0);
        expect(tab).toBeGreaterThanOrEqual(Math.max(ta, tb));
        expect(tab).toBeLessThanOrEqual(ta + tb + 1);
      }),
      2000,
    );
  });

  it('handles megabyte strings', async () => {
    await check(
      'estimateTokens on huge strings',
      fc.property(hugeText, (s) => {
        const t = estimateTokens(s);
        expect(Number.isInteger(t) && t > 0 && t <= s.length).toBe(true);
      }),
      10,
    );
  });
});

/** True when `value` holds an undefined, a function or a non-finite number anywhere (not storable as JSON). */
function hasUndefined(value: unknown): boolean {
  if (value === undefined || typeof value === 'function') return true;
  if (typeof value === 'number') return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(hasUndefined);
  if (value && typeof value === 'object') return Object.values(value).some(hasUndefined);
  return false;
}

/** Statuses reachable from `from` through allowed transitions (itself included when re-applying it is allowed). */
function reachable(from: Status): Set<Status> {
  const out = new Set<Status>();
  const todo: Status[] = [from];
  while (todo.length > 0) {
    const s = todo.pop() as Status;
    for (const next of ALLOWED_TRANSITIONS[s]) {
      if (out.has(next)) continue;
      out.add(next);
      todo.push(next);
    }
  }
  if (isAllowedTransition(from, from)) out.add(from);
  return out;
}

describe('factories and the status machine', () => {
  const addr = fc.record({
    id: hostileId,
    session_id: hostileId,
    chatbot_id: fc.oneof(fc.constantFrom(...CHANNELS), hostileText(2)),
    channel_id: hostileId,
  });
  const pos = fc.record({ turn_id: hostileId, step: fc.nat(50) });
  const text = fc.oneof(hostileText(6), fc.constant(''));
  const built: fc.Arbitrary<[MessageKind, NewMessage]> = fc.oneof(
    fc
      .tuple(
        addr,
        text,
        hostileText(2),
        fc.array(fc.record({ name: hostileText(2) }), { maxLength: 2 }),
        anyJson,
      )
      .map(([a, content, sender, attachments, ctx]): [MessageKind, NewMessage] => [
        'user_question',
        userQuestion({ ...a, content, sender, received_at: null, attachments, channel_context: ctx }),
      ]),
    fc
      .tuple(addr, text)
      .map(([a, content]): [MessageKind, NewMessage] => ['cron_prompt', cronPrompt({ ...a, content })]),
    fc
      .tuple(addr, fc.option(text, { nil: undefined }))
      .map(([a, content]): [MessageKind, NewMessage] => [
        'manual_compaction_prompt',
        manualCompactionPrompt({ ...a, content }),
      ]),
    fc
      .tuple(addr, pos, text)
      .map(([a, p, content]): [MessageKind, NewMessage] => ['thought', thought({ ...a, ...p, content })]),
    fc
      .tuple(addr, pos, text, fc.option(fc.integer(), { nil: undefined }))
      .map(([a, p, content, through]): [MessageKind, NewMessage] => [
        'final_reply',
        finalReply({
          ...a,
          ...p,
          content,
          turn_metrics: {
            session_turns: 1,
            context_tokens: 1,
            turn_tool_calls: 0,
            turn_tokens: 1,
            turn_time: 0,
          },
          compacted_through_seq: through,
        }),
      ]),
    fc
      .tuple(addr, pos, hostileText(2), fc.dictionary(hostileText(2), anyJson, { maxKeys: 3 }), hostileId)
      .map(([a, p, name, args, callId]): [MessageKind, NewMessage] => [
        'tool_call',
        toolCall({ ...a, ...p, tool_name: name, tool_arguments: args, tool_call_id: callId }),
      ]),
    fc
      .tuple(addr, pos, hostileId, hostileText(2), text, hostileText(2))
      .map(([a, p, parent, name, content, summary]): [MessageKind, NewMessage] => [
        'tool_result',
        toolResult({ ...a, ...p, parent_id: parent, tool_name: name, tool_call_id: 'c', content, summary }),
      ]),
    fc
      .tuple(hostileId, hostileId, text)
      .map(([id, session_id, content]): [MessageKind, NewMessage] => [
        'system_prompt',
        systemPrompt({ id, session_id, content }),
      ]),
    fc
      .tuple(addr, hostileId, fc.option(text, { nil: undefined }))
      .map(([a, job, report]): [MessageKind, NewMessage] => [
        'background_alert',
        backgroundAlert({ ...a, job_id: job, report }),
      ]),
    fc
      .tuple(addr, pos)
      .map(([a, p]): [MessageKind, NewMessage] => ['empty_reply_nudge', emptyReplyNudge({ ...a, ...p })]),
    fc
      .tuple(addr, text)
      .map(([a, content]): [MessageKind, NewMessage] => ['notification', notification({ ...a, content })]),
    fc
      .tuple(addr, hostileId, text, fc.option(fc.nat(9), { nil: null }))
      .map(([a, turn, content, step]): [MessageKind, NewMessage] => [
        'crash_notice',
        crashNotice({ ...a, turn_id: turn, content, step, failure_kind: 'provider' }),
      ]),
  );

  it("build their row's role, type and initial status, and every final status of the row is reachable from it", async () => {
    const c = new Counters();
    await check(
      'factories: initial status → final statuses reachable',
      fc.property(built, ([kind, m]) => {
        c.add(kind);
        const row = FIELD_MATRIX[kind];
        expect({ role: m.role, type: m.type, status: m.status }).toEqual({
          role: row.role,
          type: row.type,
          status: row.initial_status,
        });
        const canReach = reachable(m.status);
        for (const final of row.final_statuses)
          expect(canReach.has(final), `${kind}: ${m.status} cannot reach ${final}`).toBe(true);
        expect(hasUndefined(m.metadata), 'metadata must be plain JSON').toBe(false);
      }),
      1500,
      c,
    );
  });

  it('build messages that messageKind classifies as their own row (chatbot "system" aside)', async () => {
    await check(
      'factories: messageKind(factory(kind)) === kind',
      fc.property(built, ([kind, m]) => {
        // chatbot_id "system" is the spec's system-prompt address; no adapter or route uses it.
        fc.pre(m.chatbot_id !== 'system' || kind === 'system_prompt');
        expect(messageKind(m)).toBe(kind);
        for (const channel of CHANNELS)
          expect(['shown', 'live', 'silent', 'hidden']).toContain(
            presentationFor(channel, { ...m, seq: 1, revision: 1, created_at: '', updated_at: '' }),
          );
      }),
      1500,
    );
  });
});

describe('validators on any JSON value', () => {
  it('inboundProblem never throws, and accepts only what the limits allow', async () => {
    const c = new Counters();
    const inbound = fc.oneof(
      fc.record({
        id: fc.stringMatching(/^[A-Za-z0-9_.@-]{1,128}$/).filter((id) => MESSAGE_ID_PATTERN.test(id)),
        content: fc.oneof(hostileText(8), fc.string({ unit: utf16Unit, maxLength: 40 })),
        sender: hostileText(2).map((s) => `${s}x`.slice(0, 128)),
        receivedAt: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      }),
      anyJson,
      fc.record(
        {
          id: fc.oneof(hostileId, anyJson),
          content: fc.oneof(hostileText(6), anyJson, fc.string({ unit: utf16Unit, maxLength: 40 })),
          sender: fc.oneof(hostileText(2), anyJson),
          receivedAt: fc.oneof(fc.constantFrom('2026-01-01T00:00:00Z', 'yesterday', ''), anyJson),
          attachments: fc.oneof(fc.array(anyJson, { maxLength: 20 }), anyJson),
        },
        { requiredKeys: [] },
      ),
    );
    await check(
      'inboundProblem total and sound',
      fc.property(inbound, (value) => {
        const problem = inboundProblem(value as InboundMessage);
        c.add(problem === null ? 'accepted' : 'rejected');
        if (problem !== null) {
          expect(typeof problem).toBe('string');
          return;
        }
        const m = value as InboundMessage;
        expect(MESSAGE_ID_PATTERN.test(m.id)).toBe(true);
        expect(typeof m.content).toBe('string');
        // Storable text only: no NUL, no unpaired surrogate (they would be refused by Postgres or changed).
        expect(textProblem(m.content)).toBeNull();
        expect(textProblem(m.sender)).toBeNull();
        expect(Buffer.byteLength(m.content, 'utf8')).toBeLessThanOrEqual(64 * 1024);
        expect(m.content.trim() !== '' || (m.attachments ?? []).length > 0).toBe(true);
      }),
      3000,
      c,
    );
  });

  it('utf8Length equals Buffer.byteLength for every UTF-16 string, lone surrogates included', async () => {
    await check(
      'utf8Length === Buffer.byteLength',
      fc.property(fc.oneof(fc.string({ unit: utf16Unit, maxLength: 64 }), hostileText(8)), (s) => {
        expect(utf8Length(s)).toBe(Buffer.byteLength(s, 'utf8'));
      }),
      3000,
    );
  });

  it('the request parsers reject bad input only with a 4xx HttpProblem', async () => {
    const c = new Counters();
    const expectProblemOrValue = (fn: () => unknown) => {
      try {
        fn();
        c.add('ok');
      } catch (err) {
        expect(err).toBeInstanceOf(HttpProblem);
        const p = err as HttpProblem;
        expect(p.status).toBeGreaterThanOrEqual(400);
        expect(p.status).toBeLessThan(500);
        expect(p.body().detail.length).toBeGreaterThan(0);
        c.add(`problem_${p.status}`);
      }
    };
    await check(
      'parseBody/checkInbound/intQuery/cursorQuery throw only 4xx problems',
      fc.property(
        postBodyArb,
        patchBodyArb,
        queryValueArb,
        fc.oneof(queryValueArb, fc.base64String()),
        (post, patch, q, cursor) => {
          expectProblemOrValue(() => {
            const body = parseBody(postMessageSchema(), post);
            checkInbound({
              id: body.id ?? 'x',
              content: body.content,
              sender: body.sender ?? 'api',
              receivedAt: new Date(0).toISOString(),
            });
          });
          expectProblemOrValue(() => parseBody(patchSessionSchema, patch));
          expectProblemOrValue(() => intQuery(q, 'limit', 1, 100));
          expectProblemOrValue(() => cursorQuery(cursor.replaceAll('=', '')));
          // Any thrown value maps to a problem without throwing.
          expect(toProblem(post, 1).status).toBe(500);
        },
      ),
      1500,
      c,
    );
  });
});

describe('titles', () => {
  it('cleanTitle returns null or one non-empty line of at most 80 code points', async () => {
    await check(
      'cleanTitle shape',
      fc.property(fc.oneof(hostileText(10), fc.string({ unit: utf16Unit })), (raw) => {
        const t = cleanTitle(raw);
        if (t === null) return;
        expect(t.length).toBeGreaterThan(0);
        expect(t).not.toMatch(/\n/);
        expect(Array.from(t).length).toBeLessThanOrEqual(80);
        expect(titleProblem(t)).toBeNull();
      }),
      2000,
    );
  });
});

describe('known bugs found by the fuzz run (minimal failing tests; see the report)', () => {
  it('BUG-5 (property): complete turns keep their real tool results whatever the provider tool-call ids are', async () => {
    // Complete turns only: every call has its real result (parent_id = the call). No result may be replaced by
    // a synthetic "interrupted" one, whether the provider's tool-call ids are unique, empty or reused by a
    // later turn (several OpenAI-compatible servers number calls per response: call_0, call_1, …).
    const c = new Counters();
    await check(
      'complete turns keep their real tool results',
      fc.property(historyArb, (history) => {
        const complete = completeTurnsOnly(history);
        fc.pre(complete.some((m) => m.type === 'tool_call'));
        c.add('calls', complete.filter((m) => m.type === 'tool_call').length);
        const clean = buildCleanHistory(complete, { currentTurnId: null });
        const synthetic = clean.filter((m) => m.metadata?.synthetic === true);
        expect(
          synthetic.map((m) => m.id),
          'real results were replaced by synthetic ones',
        ).toEqual([]);
        const results = toProviderInput(clean, 's').messages.filter((m) => m.role === 'tool');
        expect(results.filter((m) => m.content === INTERRUPTED_TOOL_RESULT)).toEqual([]);
      }),
      400,
      c,
    );
  });

  it('BUG-5: a tool result is kept when a later turn reuses the provider tool-call id', () => {
    const at = {
      session_id: 's',
      chatbot_id: 'api',
      channel_id: 'c',
      revision: 1,
      received_at: null,
      created_at: '',
      updated_at: '',
    };
    const turn = (t: string, seq: number): Message[] => [
      {
        ...at,
        id: t,
        parent_id: null,
        sender: 'alice',
        role: 'user',
        type: 'text',
        status: 'processed',
        content: `q ${t}`,
        metadata: null,
        turn_id: t,
        step: null,
        seq,
      },
      {
        ...at,
        id: `${t}:call`,
        parent_id: t,
        sender: 'Kesoku',
        role: 'tool',
        type: 'tool_call',
        status: 'responded',
        content: 'Calling',
        metadata: { tool_name: 'run_shell_command', tool_arguments: {}, tool_call_id: 'call_0' },
        turn_id: t,
        step: 0,
        seq: seq + 1,
      },
      {
        ...at,
        id: `${t}:call:result`,
        parent_id: `${t}:call`,
        sender: 'run_shell_command',
        role: 'tool',
        type: 'tool_result',
        status: 'responded',
        content: `output of ${t}`,
        metadata: { tool_name: 'run_shell_command', tool_result: 'ok', tool_call_id: 'call_0' },
        turn_id: t,
        step: 0,
        seq: seq + 2,
      },
    ];
    const clean = buildCleanHistory([...turn('a', 1), ...turn('b', 10)], { currentTurnId: null });
    const tool = toProviderInput(clean, 's').messages.filter((m) => m.role === 'tool');
    expect(tool.map((m) => m.content)).toEqual(['output of a', 'output of b']);
  });

  it('BUG-6: cursorQuery accepts only cursors the API issued (t a canonical ISO time, no NUL)', () => {
    const cursor = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    for (const c of [
      cursor({ t: '0', id: 'x' }),
      cursor({ t: '+275760-09-13T00:00:00.000Z', id: 'x' }),
      cursor({ t: '2026-01-01T00:00:00.000Z', id: 'x\u0000' }),
    ])
      expect(() => cursorQuery(c), Buffer.from(c, 'base64url').toString()).toThrow(HttpProblem);
  });

  it('BUG-4: every valid session id gets its own workspace directory inside <data>/workspaces', async () => {
    expect(workspaceDirFor('/data', '..')).not.toBe('/data');
    expect(sessionDirName('a:b')).not.toBe(sessionDirName('a_b'));
    const validId = fc.oneof(fc.constantFrom(...oddValidIds), validSessionId);
    const root = path.join('/data', 'workspaces');
    const c = new Counters();
    await check(
      'workspaceDirFor stays inside workspaces/ and is one-to-one',
      fc.property(validId, validId, (a, b) => {
        const da = workspaceDirFor('/data', a);
        expect(path.dirname(da), `${JSON.stringify(a)} → ${da}`).toBe(root);
        if (a !== b) expect(sessionDirName(a), `${a} and ${b} share ${da}`).not.toBe(sessionDirName(b));
      }),
      2000,
      c,
    );
  });
});
