/**
 * Admission of a session's inputs: a slot is reserved synchronously (capacity counts reserved slots), the
 * message is stored, then queued (de-duplicated by message id); a new user message may interrupt the running
 * turn (interrupt mode). Every admitted item carries the stop generation it was admitted at, so a `/stop` is an
 * ordering point: what was admitted, or still being stored, before it is not run.
 * The session (workflows/session-state.ts) owns the queue and the settings; this part reads them through
 * {@link AdmissionHost}.
 */
import type { PersistenceActivities } from './activity-contracts.ts';
import { LIMITS, inboundProblem, type InboundMessage } from '../domain/inbound.ts';
import type { SessionMode } from '../domain/session-settings.ts';
import type { SessionAddress, SessionProblem, SubmitResult } from './definitions.ts';
import type { SessionPorts } from './session-ports.ts';
import type { SessionQueue } from './session-queue.ts';
import { interruptsTurnOf } from './session-queue.ts';
import type { TurnLifecycle } from './session-turns.ts';

/** What admission needs of its session. */
export interface AdmissionHost {
  readonly address: SessionAddress;
  readonly queue: SessionQueue;
  readonly mode: SessionMode;
  readonly turns: Pick<TurnLifecycle, 'current' | 'cancel'>;
  record(what: SessionProblem['what'], messageId: string | null, err: unknown): void;
  deliverNotice(messageId: string, fromHandler: boolean): Promise<void>;
}

/** Reserve, store, queue; the stop generation. */
export class SessionAdmission {
  /** Increases with every `/stop`; an item admitted at a lower value is not run. */
  stopGeneration: number;
  /** Messages being stored, with the stop generation they were reserved at. */
  private readonly reservedAt = new Map<string, number>();

  private readonly session: AdmissionHost;
  private readonly ports: SessionPorts;

  constructor(session: AdmissionHost, ports: SessionPorts, stopGeneration: number) {
    this.session = session;
    this.ports = ports;
    this.stopGeneration = stopGeneration;
  }

  /** `submitMessage` validator: shape and capacity (duplicates pass, they answer with the stored message). */
  validateSubmit(msg: InboundMessage): void {
    const problem = inboundProblem(msg);
    if (problem) throw this.ports.fail('invalid_message', `invalid message: ${problem}`);
    if (!this.session.queue.isSeen(msg.id) && !this.session.queue.hasRoom()) throw this.queueFull();
  }

  /** `submitMessage`: stores and queues a message. @throws the update failures `id_taken`, `input_persistence` */
  async submit(msg: InboundMessage): Promise<SubmitResult> {
    if (this.session.queue.isSeen(msg.id)) {
      const stored = await this.store(msg, false);
      return {
        message: stored.message,
        queue_position: this.queuePosition(this.session.queue.positionOf(msg.id)),
        duplicate: true,
      };
    }
    this.reserve(msg.id);
    const stored = await this.store(msg, true);
    return this.admitStored(msg.id, stored, msg.senderId, queueKindOf(msg));
  }

  /** `userMessage` signal in runs that refuse it: logged, nothing stored or queued. */
  refuseSignal(msg: InboundMessage): void {
    const id = typeof (msg as Partial<InboundMessage> | null)?.id === 'string' ? msg.id : null;
    this.ports.log.warn('userMessage signal refused: messages arrive by the submitMessage update', {
      messageId: id,
    });
  }

  /**
   * `userMessage` signal in runs started before it was refused (their histories replay): like {@link submit},
   * but every failure is logged, never thrown.
   */
  async receiveSignal(msg: InboundMessage): Promise<void> {
    try {
      const problem = inboundProblem(msg);
      if (problem !== null)
        return this.ports.log.warn('userMessage signal ignored: invalid payload', { problem });
      if (this.session.queue.isSeen(msg.id)) return;
      if (!this.session.queue.hasRoom()) return await this.rejectQueueFull(msg);
      this.reserve(msg.id);
      this.admitStored(msg.id, await this.store(msg, true), msg.senderId, queueKindOf(msg));
    } catch (err) {
      this.session.record('signal', msg?.id ?? null, err);
    }
  }

  private async rejectQueueFull(msg: InboundMessage): Promise<void> {
    this.session.queue.markSeen(msg.id);
    const { noticeId } = await this.ports.handlerWrites.rejectInbound({
      address: this.session.address,
      message: msg,
      capacity: LIMITS.queueCapacity,
    });
    if (noticeId) await this.session.deliverNotice(noticeId, true);
  }

  private reserve(id: string): void {
    this.session.queue.reserve(id);
    this.reservedAt.set(id, this.stopGeneration);
  }

  /** Stores an inbound message; on failure gives its slot back and throws a typed update failure. */
  private async store(msg: InboundMessage, reserved: boolean) {
    try {
      return await this.ports.handlerWrites.acceptInbound({ address: this.session.address, message: msg });
    } catch (err) {
      if (reserved) {
        this.session.queue.release(msg.id);
        this.reservedAt.delete(msg.id);
      }
      if (failureTypeIn(err) === 'id_taken')
        throw this.ports.fail('id_taken', 'this message id is already used by another session');
      throw this.ports.fail('input_persistence', 'the message could not be stored; nothing was queued');
    }
  }

  private admitStored(
    id: string,
    stored: Awaited<ReturnType<PersistenceActivities['acceptInbound']>>,
    senderId: string | undefined,
    kind: 'user' | 'cron' | 'alert' = 'user',
  ): SubmitResult {
    const gen = this.reservedAt.get(id) ?? this.stopGeneration;
    this.reservedAt.delete(id);
    const index = this.session.queue.commit(
      id,
      stored.message.status === 'pending_agent',
      kind,
      gen,
      senderId,
    );
    // A new user message interrupts a running user turn of the same sender (interrupt mode); compaction and
    // scheduled (cron) turns run to the end, a cron prompt or a background alert never interrupts and waits
    // behind the running turn, and in a shared channel other people's messages wait in the queue.
    if (
      index !== null &&
      kind === 'user' &&
      this.session.mode === 'interrupt' &&
      this.session.turns.current?.item.kind === 'user' &&
      this.session.turns.current.item.messageId !== id &&
      interruptsTurnOf(this.session.turns.current.item.senderId, senderId)
    ) {
      this.session.turns.cancel('interrupt');
    }
    return { message: stored.message, queue_position: this.queuePosition(index), duplicate: !stored.created };
  }

  /** Turns ahead of a queued item: the running one counts unless it is being stopped. */
  private queuePosition(index: number | null): number {
    if (index === null) return 0;
    return index + (this.session.turns.current && !this.session.turns.current.stopReason ? 1 : 0);
  }

  private queueFull(): Error {
    return this.ports.fail(
      'queue_full',
      `queue full: the session already holds ${LIMITS.queueCapacity} messages`,
    );
  }

  /**
   * `/stop`'s part in admission: everything admitted so far (queued, or still being stored) will end
   * `interrupted` instead of running. @returns whether anything was waiting
   */
  stopAdmitted(): boolean {
    const waiting = this.session.queue.length + this.reservedAt.size > 0;
    this.stopGeneration++;
    return waiting;
  }

  /** How many messages are being stored (reserved, not yet queued). */
  get storing(): number {
    return this.reservedAt.size;
  }

  /** `compact` validator. */
  validateCompact(): void {
    if (!this.session.queue.hasRoom()) throw this.queueFull();
  }

  /** `compact`: stores and queues a manual compaction prompt. */
  async compact(): Promise<{ queued: boolean; message_id: string }> {
    const id = `compact-${this.ports.uuid()}`;
    this.reserve(id);
    try {
      const { message } = await this.ports.handlerWrites.createCompactionPrompt({
        address: this.session.address,
        id,
        receivedAt: this.ports.now().toISOString(),
      });
      this.session.queue.commit(
        message.id,
        true,
        'compaction',
        this.reservedAt.get(id) ?? this.stopGeneration,
      );
      this.reservedAt.delete(id);
      return { queued: true, message_id: message.id };
    } catch {
      this.session.queue.release(id);
      this.reservedAt.delete(id);
      throw this.ports.fail('input_persistence', 'the compaction request could not be stored');
    }
  }
}

/**
 * The queue kind of an inbound message: a scheduled prompt (`cron`) and a background alert (`alert`) keep their
 * place and never interrupt.
 */
function queueKindOf(msg: InboundMessage): 'user' | 'cron' | 'alert' {
  if (msg.kind === 'cron') return 'cron';
  return msg.kind === 'background_alert' ? 'alert' : 'user';
}

/** The ApplicationFailure type in an activity failure's cause chain, if any. */
function failureTypeIn(err: unknown): string | null {
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 4; depth++) {
    const type = (cur as { type?: unknown }).type;
    if (typeof type === 'string') return type;
    cur = (cur as { cause?: unknown }).cause;
  }
  return null;
}
