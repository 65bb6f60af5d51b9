/**
 * One session as the page shows it, kept the way docs/message-flow.md §11 asks clients to keep it: the committed
 * messages by id (a repeated delta changes nothing, a changed message replaces its old version), in phased order
 * (docs/message-model.md §5.1, domain/history.ts), at the revision held; plus the running turn from `turn.updated`
 * snapshots and the tool calls waiting for a decision.
 *
 * {@link Transcript.view} says what to draw: the visible messages (what the terminal client prints: every kind a
 * person may see, docs/message-model.md §5.3), and of the running turn only what is not committed yet — the step's
 * streamed text until its thought or reply is committed, the tools until their results are — so the page never
 * shows a piece twice. A turn is over once its trigger reaches a final status, its final reply or crash notice is
 * committed, or a `finished` snapshot came, whichever is first. A tool call of an ended turn that never got a
 * result (a command stopped while it ran) is shown with the synthetic interrupted result the model is given for it
 * (domain/tool-flow.ts, docs/message-model.md §4.4), so it reads ⏹️ as everywhere else.
 *
 * Pure: no I/O, no DOM.
 */
import { isTurnTrigger, sortHistory } from '../../../domain/history.ts';
import type { Message } from '../../../domain/message.ts';
import { messageKind } from '../../../domain/message-kind.ts';
import { presentationFor } from '../../../domain/presentation.ts';
import { isTerminalStatus } from '../../../domain/status-machine.ts';
import type { ToolApproval } from '../../../domain/tool-approval.ts';
import {
  indexToolFlows,
  syntheticInterruptedResult,
  toolCallIdOf,
  toolNameOf,
} from '../../../domain/tool-flow.ts';
import type { ApprovalRequest, TurnUpdate } from './follow.ts';

/** A tool call of the running turn that has no committed result yet. */
export interface LiveTool {
  call_id: string;
  name: string;
  status: 'waiting' | 'running' | 'ok' | 'error';
  summary?: string;
  /** Epoch ms when it started, when known. */
  startedAt?: number;
  /** Epoch ms when it finished, when known. */
  finishedAt?: number;
  /** While it runs: the last lines of its command's output (api/live-turns.ts ToolProgress `output_tail`). */
  outputTail?: string;
}

/** The part of the running turn not committed yet. */
export interface LiveView {
  turnId: string;
  step: number;
  status: TurnUpdate['status'];
  /** The step's streamed text while it is not committed, else ''. */
  text: string;
  /** Characters of the step's text before `text` that this API did not see (0: `text` is whole). */
  textOffset: number;
  tools: LiveTool[];
  notices: string[];
}

/** A tool call waiting for a person's decision. */
export interface PendingDecision {
  call_id: string;
  turn_id: string;
  tool_name: string;
  subject: string;
  /** Epoch ms when the wait ends as timed out; null when unknown. */
  expiresAt: number | null;
}

export interface TranscriptView {
  /** Visible committed messages, phased order (with synthetic results for calls of ended turns that had none). */
  messages: Message[];
  /** The tool_call a tool_result answers. */
  callOf: (result: Message) => Message | undefined;
  live: LiveView | null;
  pending: PendingDecision[];
  /** A turn is being worked on (a trigger is `processing`, or a snapshot of a turn not ended is held). */
  busy: boolean;
}

const ENDED_MEMORY = 64;

/** See the module comment. Mutable; `version` changes on every change (for re-rendering). */
export class Transcript {
  readonly sessionId: string;
  private readonly byId = new Map<string, Message>();
  private ordered: Message[] = [];
  private live: TurnUpdate | null = null;
  private readonly requests = new Map<string, ApprovalRequest>();
  private readonly ended: string[] = [];
  /** The revision held: every message committed up to it is here. */
  revision = 0;
  /** True when older messages than the oldest held exist (the history was read from its newest end). */
  hasOlder = false;
  version = 0;

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  /** Replaces everything with a history read (the first load, or a reset stream). */
  load(messages: readonly Message[], revision: number, hasOlder = false): void {
    this.byId.clear();
    this.requests.clear();
    this.live = null;
    this.hasOlder = hasOlder;
    this.revision = revision;
    this.merge(messages);
  }

  /** Adds an older page of history (`before_seq`). */
  prepend(messages: readonly Message[], hasOlder: boolean): void {
    this.hasOlder = hasOlder;
    const fresh = messages.filter((m) => !this.byId.has(m.id));
    this.merge(fresh);
  }

  /** A committed delta: new and changed messages with revision up to `revision`. */
  commit(messages: readonly Message[], revision: number): void {
    if (revision > this.revision) this.revision = revision;
    this.merge(messages);
  }

  /** A `turn.updated` snapshot; a snapshot of an ended turn or an earlier step is ignored. */
  update(u: TurnUpdate): void {
    if (u.session_id !== this.sessionId || this.ended.includes(u.turn_id)) return;
    if (u.status === 'finished') {
      this.end(u.turn_id);
      this.version++;
      return;
    }
    if (this.live && this.live.turn_id === u.turn_id && u.step < this.live.step) return;
    this.live = u;
    this.version++;
  }

  /** An `approval_requested` event (repeats are fine). */
  requestApproval(a: ApprovalRequest): void {
    if (a.session_id !== this.sessionId || this.ended.includes(a.turn_id)) return;
    this.requests.set(a.call_id, a);
    this.version++;
  }

  /** The oldest `seq` held (for reading older history), or null. */
  get oldestSeq(): number | null {
    let min: number | null = null;
    for (const m of this.byId.values()) if (min === null || m.seq < min) min = m.seq;
    return min;
  }

  /** True when message `id` is committed here. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** What to draw; see the module comment. */
  view(nowMs = Date.now()): TranscriptView {
    const flows = indexToolFlows(this.ordered);
    const synthetic = this.ordered
      .filter((m) => m.type === 'tool_call' && !flows.resultOf.has(m.id) && this.turnEnded(m.turn_id))
      .map(syntheticInterruptedResult);
    const all = synthetic.length > 0 ? sortHistory([...this.ordered, ...synthetic]) : this.ordered;
    const callOf = new Map(flows.callOf);
    for (const r of synthetic) callOf.set(r.id, this.byId.get(r.parent_id ?? '') as Message);
    const messages = all.filter((m) => presentationFor('cli', m) !== 'hidden');
    const live = this.liveView(flows.resultOf);
    const pending = this.pendingDecisions(nowMs);
    const busy = live !== null || this.ordered.some((m) => isTurnTrigger(m) && m.status === 'processing');
    return { messages, callOf: (result) => callOf.get(result.id), live, pending, busy };
  }

  /** True when the turn's trigger is held with a final status (a message outside a turn counts as ended). */
  private turnEnded(turnId: string | null): boolean {
    if (turnId === null) return true;
    const trigger = this.byId.get(turnId);
    return trigger !== undefined && isTerminalStatus(trigger.status);
  }

  private merge(messages: readonly Message[]): void {
    for (const m of messages) {
      const held = this.byId.get(m.id);
      if (held && held.revision > m.revision) continue; // an older version of what is held
      this.byId.set(m.id, m);
      this.noteEnd(m);
    }
    this.ordered = sortHistory([...this.byId.values()]);
    this.version++;
  }

  /** Whether `m` ends its turn (its trigger's final status, its final reply or crash notice). */
  private noteEnd(m: Message): void {
    if (m.turn_id === null) return;
    if (m.id === m.turn_id) {
      if (isTerminalStatus(m.status)) this.end(m.id);
      return;
    }
    const kind = messageKind(m);
    if (kind === 'final_reply' || kind === 'crash_notice') this.end(m.turn_id);
  }

  private end(turnId: string): void {
    if (!this.ended.includes(turnId)) this.ended.push(turnId);
    if (this.ended.length > ENDED_MEMORY) this.ended.shift();
    if (this.live?.turn_id === turnId) this.live = null;
    for (const [id, r] of this.requests) if (r.turn_id === turnId) this.requests.delete(id);
  }

  /** The running turn's uncommitted part: from the snapshot, and from committed calls still without results. */
  private liveView(resultOf: ReadonlyMap<string, Message>): LiveView | null {
    const snap = this.live;
    const running = snap?.turn_id ?? this.runningTrigger()?.id ?? null;
    if (running === null) return null;
    const turn = this.ordered.filter((m) => m.turn_id === running);
    // Snapshots name a call by the id the model knows it by (toolCallIdOf).
    const results = new Set(
      turn
        .filter((m) => m.type === 'tool_call' && resultOf.has(m.id))
        .flatMap((m) => [m.id, toolCallIdOf(m)]),
    );
    const stepText =
      snap !== null &&
      turn.some(
        (m) => m.step === snap.step && (m.type === 'thought' || (m.type === 'text' && m.role !== 'user')),
      );
    const tools: LiveTool[] = [];
    const seen = new Set<string>();
    // Calls committed without a result: waiting for approval, or running (their snapshot entry says more).
    for (const call of turn.filter((m) => m.type === 'tool_call')) {
      const callId = toolCallIdOf(call);
      if (results.has(call.id)) continue;
      const approval = call.metadata?.approval as ToolApproval | undefined;
      if (approval && approval.state !== 'pending' && approval.state !== 'approved') continue;
      const progress = snap?.tools.find((t) => t.call_id === call.id || t.call_id === callId);
      seen.add(call.id);
      if (progress) seen.add(progress.call_id);
      // It starts once approved, else right after the step that asked for it was committed.
      const startedAt =
        approval?.state === 'pending' ? undefined : Date.parse(approval?.at ?? call.created_at);
      const fromCall: LiveTool = {
        call_id: call.id,
        name: toolNameOf(call),
        status: approval?.state === 'pending' ? 'waiting' : 'running',
        ...(startedAt !== undefined && Number.isFinite(startedAt) ? { startedAt } : {}),
      };
      // The snapshot knows better, but may not know when it started (the API joined mid-call).
      tools.push(progress ? { ...fromCall, ...liveTool(progress), call_id: call.id } : fromCall);
    }
    for (const t of snap?.tools ?? [])
      if (!seen.has(t.call_id) && !results.has(t.call_id)) tools.push(liveTool(t));
    return {
      turnId: running,
      step: snap?.step ?? 0,
      status: snap?.status ?? 'thinking',
      text: snap && !stepText ? snap.text : '',
      textOffset: snap && !stepText ? (snap.text_offset ?? 0) : 0,
      tools,
      notices: snap?.notices ?? [],
    };
  }

  /** The newest trigger still `processing` whose end was not seen. */
  private runningTrigger(): Message | null {
    for (let i = this.ordered.length - 1; i >= 0; i--) {
      const m = this.ordered[i] as Message;
      if (isTurnTrigger(m) && m.status === 'processing' && !this.ended.includes(m.id)) return m;
    }
    return null;
  }

  /**
   * Calls waiting for a decision: announced by the stream or committed as `pending`, of a turn not ended, and not
   * decided in what is committed.
   */
  private pendingDecisions(nowMs: number): PendingDecision[] {
    const out = new Map<string, PendingDecision>();
    for (const r of this.requests.values()) {
      const expiresAt = r.expires_at ? Date.parse(r.expires_at) : null;
      out.set(r.call_id, {
        call_id: r.call_id,
        turn_id: r.turn_id,
        tool_name: r.tool_name,
        subject: r.subject,
        expiresAt: expiresAt !== null && Number.isFinite(expiresAt) ? expiresAt : null,
      });
    }
    for (const m of this.ordered) {
      if (m.type !== 'tool_call' || m.turn_id === null || this.ended.includes(m.turn_id)) continue;
      const approval = m.metadata?.approval as ToolApproval | undefined;
      if (!approval) continue;
      if (approval.state !== 'pending') {
        out.delete(m.id);
        continue;
      }
      const trigger = this.byId.get(m.turn_id);
      if (trigger && isTerminalStatus(trigger.status)) continue;
      if (!out.has(m.id)) {
        const expiresAt = approval.expires_at ? Date.parse(approval.expires_at) : null;
        out.set(m.id, {
          call_id: m.id,
          turn_id: m.turn_id,
          tool_name: toolNameOf(m),
          subject: approval.subject,
          expiresAt: expiresAt !== null && Number.isFinite(expiresAt) ? expiresAt : null,
        });
      }
    }
    return [...out.values()].filter((p) => p.expiresAt === null || p.expiresAt > nowMs - 5_000);
  }
}

function liveTool(t: TurnUpdate['tools'][number]): LiveTool {
  const started = t.started_at ? Date.parse(t.started_at) : NaN;
  const finished = t.finished_at ? Date.parse(t.finished_at) : NaN;
  return {
    call_id: t.call_id,
    name: t.name,
    status: t.status,
    ...(t.summary !== undefined ? { summary: t.summary } : {}),
    ...(Number.isFinite(started) ? { startedAt: started } : {}),
    ...(Number.isFinite(finished) ? { finishedAt: finished } : {}),
    ...(t.status === 'running' && t.output_tail ? { outputTail: t.output_tail } : {}),
  };
}
