import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCleanHistory } from './clean-history.ts';
import { sortHistory } from './history.ts';
import { messageKind } from './message-kind.ts';
import type { Message } from './message.ts';
import { toProviderInput } from './transpile.ts';
import { providerInvariantViolations } from './fixtures/provider-invariants.ts';
import {
  TRACE_6_1,
  TRACE_6_1_CLEAN_IDS_AFTER_TURN,
  TRACE_6_1_PROVIDER_AFTER_TURN,
  TRACE_6_1_PROVIDER_AT_STEP_1,
  TRACE_6_1_SETTLED,
  TRACE_6_1_SORTED_IDS,
} from './fixtures/trace-6-1.ts';
import {
  KESOKU_INTERRUPTED_CLEAN_IDS,
  KESOKU_INTERRUPTED_PROVIDER_AFTER,
  KESOKU_INTERRUPTED_PROVIDER_AT_TURN_102_START,
  KESOKU_INTERRUPTED_SORTED_IDS,
  KESOKU_INTERRUPTED_TRACE,
} from './fixtures/trace-kesoku-interrupted.ts';
import {
  KESOKU_CRASHED_CLEAN_IDS,
  KESOKU_CRASHED_PROVIDER_AFTER,
  KESOKU_CRASHED_SORTED_IDS,
  KESOKU_CRASHED_TRACE,
} from './fixtures/trace-kesoku-crashed.ts';

const SYSTEM = '# System Instructions\nYou are Kesoku.';
const ids = (messages: readonly Message[]): string[] => messages.map((message) => message.id);
const anyOrder = (trace: readonly Message[]) =>
  fc.shuffledSubarray([...trace], { minLength: trace.length, maxLength: trace.length });

describe('docs/message-model.md §6.1 trace (Discord, one tool call)', () => {
  it('classifies the spec’s records as their field-matrix rows', () => {
    expect(TRACE_6_1.map(messageKind)).toEqual([
      'user_question',
      'thought',
      'tool_call',
      'tool_result',
      'final_reply',
    ]);
  });

  it('sorts into phased order from any input order, with every timestamp equal', () => {
    expect(new Set(TRACE_6_1.map((message) => message.created_at)).size).toBe(1);
    fc.assert(
      fc.property(anyOrder(TRACE_6_1), (shuffled) => {
        expect(ids(sortHistory(shuffled))).toEqual([...TRACE_6_1_SORTED_IDS]);
      }),
    );
  });

  it('gives the next turn the history without the thought', () => {
    for (const trace of [TRACE_6_1, TRACE_6_1_SETTLED]) {
      const clean = buildCleanHistory(trace, { currentTurnId: null });
      expect(ids(clean)).toEqual([...TRACE_6_1_CLEAN_IDS_AFTER_TURN]);
      expect(toProviderInput(clean, SYSTEM)).toEqual({
        system: SYSTEM,
        messages: TRACE_6_1_PROVIDER_AFTER_TURN,
      });
    }
  });

  it('gives the model call of step 1 the thought with its tool call', () => {
    const beforeReply = TRACE_6_1.filter((message) => message.id !== 'msg_reply_001');
    const clean = buildCleanHistory(beforeReply, { currentTurnId: 'msg_user_001' });
    expect(toProviderInput(clean, SYSTEM).messages).toEqual(TRACE_6_1_PROVIDER_AT_STEP_1);
  });
});

describe('Kesoku trace: interrupted turn (not from the spec)', () => {
  it('keeps the interrupted turn together although its call was written after the next question', () => {
    fc.assert(
      fc.property(anyOrder(KESOKU_INTERRUPTED_TRACE), (shuffled) => {
        expect(ids(sortHistory(shuffled))).toEqual([...KESOKU_INTERRUPTED_SORTED_IDS]);
      }),
    );
  });

  it('shows the next turn both questions and repairs the dangling call', () => {
    const atStart = KESOKU_INTERRUPTED_TRACE.filter(
      (message) => message.turn_id === 'msg_user_101' || message.id === 'msg_user_102',
    );
    const clean = buildCleanHistory(atStart, { currentTurnId: 'msg_user_102' });
    expect(ids(clean)).toEqual(['msg_user_101', 'msg_call_101', 'msg_call_101:interrupted', 'msg_user_102']);
    const input = toProviderInput(clean, SYSTEM);
    expect(input.messages).toEqual(KESOKU_INTERRUPTED_PROVIDER_AT_TURN_102_START);
    expect(providerInvariantViolations(input.messages)).toEqual([]);
  });

  it('keeps the repair once both turns are over', () => {
    const clean = buildCleanHistory(KESOKU_INTERRUPTED_TRACE, { currentTurnId: null });
    expect(ids(clean)).toEqual([...KESOKU_INTERRUPTED_CLEAN_IDS]);
    const messages = toProviderInput(clean, SYSTEM).messages;
    expect(messages).toEqual(KESOKU_INTERRUPTED_PROVIDER_AFTER);
    expect(providerInvariantViolations(messages)).toEqual([]);
  });
});

describe('Kesoku trace: crashed turn (not from the spec)', () => {
  it('sorts the crash notice after the failed step’s tool flow', () => {
    fc.assert(
      fc.property(anyOrder(KESOKU_CRASHED_TRACE), (shuffled) => {
        expect(ids(sortHistory(shuffled))).toEqual([...KESOKU_CRASHED_SORTED_IDS]);
      }),
    );
    expect(KESOKU_CRASHED_TRACE.map(messageKind)).toContain('crash_notice');
  });

  it('keeps the failed question and the crash notice visible to the model', () => {
    const clean = buildCleanHistory(KESOKU_CRASHED_TRACE, { currentTurnId: null });
    expect(ids(clean)).toEqual(KESOKU_CRASHED_CLEAN_IDS);
    const messages = toProviderInput(clean, SYSTEM).messages;
    expect(messages).toEqual(KESOKU_CRASHED_PROVIDER_AFTER);
    expect(providerInvariantViolations(messages)).toEqual([]);
  });
});
