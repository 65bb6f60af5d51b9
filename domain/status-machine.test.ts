import { describe, expect, it } from 'vitest';
import { STATUSES } from './message.ts';
import type { Status } from './message.ts';
import {
  ALLOWED_TRANSITIONS,
  INPUT_STATUSES,
  IllegalTransitionError,
  OUTPUT_STATUSES,
  TERMINAL_STATUSES,
  assertTransition,
  isAllowedTransition,
} from './status-machine.ts';

// docs/message-model.md §4 (plus Kesoku's pending_agent → interrupted | error), written out independently of the module.
const ALLOWED: Array<[Status, Status]> = [
  ['pending_agent', 'processing'],
  ['pending_agent', 'interrupted'],
  ['pending_agent', 'error'],
  ['processing', 'processed'],
  ['processing', 'interrupted'],
  ['processing', 'error'],
  ['pending', 'delivered'],
  ['responded', 'delivered'],
  ['responded', 'interrupted'], // a tool_call left without a result when its turn ended
];

const ILLEGAL: Array<[Status, Status]> = [
  ['pending_agent', 'processed'], // must be claimed first
  ['pending_agent', 'delivered'], // input and output lifecycles never mix
  ['processing', 'pending_agent'], // no orphan sweep: Temporal resumes the turn
  ['processed', 'processing'],
  ['interrupted', 'processing'],
  ['error', 'processed'],
  ['pending', 'responded'],
  ['responded', 'pending'],
  ['delivered', 'pending'],
  ['delivered', 'interrupted'], // delivered is final, even for a tool_call a live channel showed
  ['pending', 'processed'],
  ['processing', 'processing'], // a second claim
];

describe('status machine (docs/message-model.md §4)', () => {
  it('holds exactly the spec’s transitions', () => {
    const listed = STATUSES.flatMap((from) => ALLOWED_TRANSITIONS[from].map((to) => [from, to]));
    expect(listed).toEqual(ALLOWED);
  });

  it.each(ALLOWED)('allows %s → %s', (from, to) => {
    expect(isAllowedTransition(from, to)).toBe(true);
    expect(() => assertTransition('m1', from, to)).not.toThrow();
  });

  it.each(ILLEGAL)('refuses %s → %s', (from, to) => {
    expect(isAllowedTransition(from, to)).toBe(false);
  });

  it('allows re-applying a status to itself except processing (a double claim)', () => {
    const idempotent = STATUSES.filter((status) => isAllowedTransition(status, status));
    expect(idempotent).toEqual(STATUSES.filter((status) => status !== 'processing'));
  });

  it('calls terminal exactly the statuses with no way out', () => {
    expect([...TERMINAL_STATUSES].sort()).toEqual(
      STATUSES.filter((s) => ALLOWED_TRANSITIONS[s].length === 0).sort(),
    );
  });

  it('splits the statuses into the input and output lifecycles, each closed under transitions but one', () => {
    expect([...INPUT_STATUSES, ...OUTPUT_STATUSES].sort()).toEqual([...STATUSES].sort());
    for (const lifecycle of [INPUT_STATUSES, OUTPUT_STATUSES] as const) {
      for (const from of lifecycle) {
        for (const to of ALLOWED_TRANSITIONS[from]) {
          // The one crossing: an unanswered tool_call (output lifecycle) ends `interrupted` with its turn.
          if (from === 'responded' && to === 'interrupted') continue;
          expect(lifecycle as readonly Status[]).toContain(to);
        }
      }
    }
  });

  it('throws a typed error naming the message and both statuses', () => {
    let caught: unknown;
    try {
      assertTransition('msg_user_001', 'processed', 'processing');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(IllegalTransitionError);
    expect(caught).toMatchObject({
      kind: 'illegal_transition',
      messageId: 'msg_user_001',
      from: 'processed',
      to: 'processing',
      name: 'IllegalTransitionError',
    });
  });
});
