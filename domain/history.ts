/**
 * Phased sorting of a session's history (docs/message-model.md §5.1). Asynchronous tool runs make timestamps overlap, so order
 * comes from turns, steps and phases, with `seq` as the tie-breaker; timestamps are never compared.
 *
 * Pure module: no I/O, importable by workflow code.
 */
import type { Message, MessageType } from './message.ts';
import { isInputStatus } from './status-machine.ts';

/** docs/message-model.md §5.1: Thought (0) → Tool Call (1) → Tool Result (2) → Final Text (3). */
export const PHASES: Readonly<Record<MessageType, number>> = {
  thought: 0,
  tool_call: 1,
  tool_result: 2,
  text: 3,
};

/**
 * True for the message that opens a turn: no step, and either a user message or a system input (a background
 * alert in the input lifecycle).
 */
export function isTurnTrigger(message: Message): boolean {
  return (
    message.step === null &&
    (message.role === 'user' || (message.role === 'system' && isInputStatus(message.status)))
  );
}

function compareTrigger(a: Message, b: Message): number {
  return (isTurnTrigger(a) ? 0 : 1) - (isTurnTrigger(b) ? 0 : 1);
}

/** A message without a step (a crash notice after a failure outside any step, a notification) comes last. */
function compareStep(a: Message, b: Message): number {
  const stepA = a.step ?? Number.POSITIVE_INFINITY;
  const stepB = b.step ?? Number.POSITIVE_INFINITY;
  return stepA === stepB ? 0 : stepA < stepB ? -1 : 1;
}

function compareSeq(a: Message, b: Message): number {
  if (a.seq !== b.seq) return a.seq - b.seq;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Seed 000 §5.1: phase first across the whole turn, then step — every thought, call, result, then the texts. */
function compareWithinTurn(a: Message, b: Message): number {
  return compareTrigger(a, b) || PHASES[a.type] - PHASES[b.type] || compareStep(a, b) || compareSeq(a, b);
}

/** The causal order a model conversation needs: step by step, each step by phase. */
function compareStepwise(a: Message, b: Message): number {
  return compareTrigger(a, b) || compareStep(a, b) || PHASES[a.type] - PHASES[b.type] || compareSeq(a, b);
}

/**
 * The order a model conversation needs (docs/message-model.md §5.4): each run of consecutive messages of one turn
 * stays where it is, and inside it the trigger comes first, then step by step, each step by phase — so a
 * step's thought, its tool calls and their results stay together, as the providers' tool protocol requires
 * (the stored history is phase-first across the turn, {@link sortHistory}). Returns a new array.
 */
export function stepwiseOrder(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let run: Message[] = [];
  const flush = () => {
    out.push(...run.sort(compareStepwise));
    run = [];
  };
  for (const message of messages) {
    const first = run[0];
    if (first !== undefined && (message.turn_id === null || message.turn_id !== first.turn_id)) flush();
    run.push(message);
  }
  flush();
  return out;
}

/**
 * Groups messages into turns, in history order (docs/message-model.md §5.1). A turn is all messages sharing a `turn_id` (a
 * trigger's `turn_id` is its own id); a message with `turn_id` null is a group of its own. Groups are ordered by
 * their smallest `seq`; inside a group, messages are in phased order (see {@link sortHistory}). Returns new
 * arrays; the messages themselves are not copied.
 */
export function groupTurns(messages: readonly Message[]): Message[][] {
  const groups = new Map<string, Message[]>();
  for (const message of messages) {
    const key = message.turn_id === null ? `message:${message.seq}:${message.id}` : `turn:${message.turn_id}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [message]);
    else group.push(message);
  }
  const keyed = [...groups].map(([key, group]) => ({
    key,
    minSeq: Math.min(...group.map((message) => message.seq)),
    group: group.sort(compareWithinTurn),
  }));
  keyed.sort((a, b) => a.minSeq - b.minSeq || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map(({ group }) => group);
}

/**
 * docs/message-model.md §5.1 phased sorting. Turns in order of their smallest `seq`; within a turn the trigger
 * first, then by phase across the whole turn — thought → tool_call → tool_result → text (system-role nudges are
 * text, phase 3) — within a phase by `step` ascending (messages without a step last), ties by `seq` then `id`.
 * Deterministic for any input order and independent of timestamps. Returns a new array.
 */
export function sortHistory(messages: readonly Message[]): Message[] {
  return groupTurns(messages).flat();
}
