/**
 * One session: its header (title to rename, channel, status, mode and approval policy), the transcript
 * (adapters/web/src/transcript.ts: the newest messages read once, then only committed deltas from the event
 * stream, adapters/web/src/follow.ts), the running turn, the approval cards, the messages not sent yet, and the
 * composer. Esc anywhere on the page stops the running turn. The header's ⏰ button opens the session's schedules
 * (adapters/web/src/schedules.tsx) beside the transcript (`.chat-body` is a grid: the conversation, then the panel).
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { formatSeconds } from '../../../domain/presentation.ts';
import {
  ApiError,
  type ApprovalPolicy,
  type KesokuClient,
  type OutgoingAttachment,
  type SessionInfo,
} from './api.ts';
import { Composer } from './composer.tsx';
import { follow, type Follower, type StreamState } from './follow.ts';
import { LiveTurnView } from './live.tsx';
import { MessageView } from './message.tsx';
import { WEB_SENDER, type OutboxItem } from './outbox.ts';
import { PlanPanel, activePlan, useLivePlan } from './plan.tsx';
import { SchedulesPanel, useSchedules } from './schedules.tsx';
import type { PageConfig } from './storage.tsx';
import { Transcript, type PendingDecision } from './transcript.ts';

/** How many of the newest messages a session opens with; older ones come with "Show older messages". */
const PAGE = 200;

export interface ChatViewProps {
  client: KesokuClient;
  sessionId: string;
  config: PageConfig;
  outbox: readonly OutboxItem[];
  onSend: (sessionId: string, content: string, attachments: OutgoingAttachment[]) => void;
  onRetry: (id: string) => void;
  onDiscard: (id: string) => void;
  /** Accepted outbox items that this transcript now holds can go. */
  onCommittedIds: (sessionId: string, has: (id: string) => boolean) => void;
  onUnauthorized: () => void;
  /** The session changed (a commit, a rename): the list may refresh; `revision` is what this view holds. */
  onActivity: (sessionId: string, revision: number) => void;
  /** The event stream (re)connected: the API answers again, so what waits to be sent can go now. */
  onConnected: () => void;
  /** Whether a turn of this session runs or waits (for the list's status of the open session). */
  onStatus: (sessionId: string, status: { busy: boolean; waiting: number }) => void;
}

/** Re-renders every `everyMs` while `active` (running tools' elapsed times, approval countdowns). */
function useNow(active: boolean, everyMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [active, everyMs]);
  return active ? now : Date.now();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function ChatView(props: ChatViewProps) {
  const { client, sessionId, config } = props;
  // The callbacks as of the latest render: the stream's handlers outlive renders.
  const latest = useRef(props);
  latest.current = props;
  const onUnauthorized = useCallback(() => latest.current.onUnauthorized(), []);
  const transcript = useRef(new Transcript(sessionId));
  const follower = useRef<Follower | null>(null);
  const [, setVersion] = useState(0);
  const [info, setInfo] = useState<SessionInfo | null>(null);
  const [stream, setStream] = useState<StreamState>({ state: 'connecting' });
  const [loading, setLoading] = useState(true);
  const [notice, setNotice] = useState<string | null>(null);
  const [dropped, setDropped] = useState<{ files: File[]; at: number } | null>(null);
  const [dragging, setDragging] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const [schedulesOpen, setSchedulesOpen] = useState(false);
  const [livePlan, seePlan] = useLivePlan(sessionId);

  // Load the newest messages, then follow the event stream from the revision they are at.
  useEffect(() => {
    const t = new Transcript(sessionId);
    transcript.current = t;
    setVersion((v) => v + 1);
    setInfo(null);
    setLoading(true);
    setNotice(null);
    stick.current = true;
    let cancelled = false;
    let infoTimer: ReturnType<typeof setTimeout> | null = null;
    const changed = () => {
      if (cancelled) return;
      setVersion((v) => v + 1);
    };
    const refreshInfo = async () => {
      try {
        const session = await client.getSession(sessionId);
        if (!cancelled) setInfo(session);
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) onUnauthorized();
      }
    };
    const soonRefreshInfo = () => {
      if (infoTimer) clearTimeout(infoTimer);
      infoTimer = setTimeout(() => void refreshInfo(), 250);
    };
    void (async () => {
      for (let attempt = 0; !cancelled; attempt++) {
        try {
          const [session, history] = await Promise.all([
            client.getSession(sessionId),
            client.getMessages(sessionId, { limit: PAGE }).catch((err: unknown) => {
              if (err instanceof ApiError && err.status === 404) return null; // nothing sent to it yet
              throw err;
            }),
          ]);
          if (cancelled) return;
          setInfo(session);
          if (history) t.load(history.messages, history.revision, history.has_more === true);
          break;
        } catch (err) {
          if (cancelled) return;
          if (err instanceof ApiError && err.status === 401) return onUnauthorized();
          setStream({
            state: 'lost',
            error: err instanceof ApiError ? err : new ApiError('protocol', String(err)),
            attempt: attempt + 1,
            retryInMs: 1000,
          });
          await sleep(Math.min(10_000, 500 * 2 ** attempt));
        }
      }
      if (cancelled) return;
      setLoading(false);
      changed();
      latest.current.onActivity(sessionId, t.revision);
      follower.current = follow({
        client,
        sessionId,
        afterRevision: t.revision,
        handlers: {
          onCommitted(messages, revision, reset) {
            if (reset) t.load(messages, revision);
            else t.commit(messages, revision);
            changed();
            latest.current.onCommittedIds(sessionId, (id) => t.has(id));
            latest.current.onActivity(sessionId, revision);
            soonRefreshInfo();
          },
          onUpdated(u) {
            seePlan(u);
            t.update(u);
            changed();
          },
          onApprovalRequested(a) {
            t.requestApproval(a);
            changed();
            soonRefreshInfo();
          },
          onState(s) {
            if (cancelled) return;
            setStream(s);
            if (s.state === 'unauthorized') onUnauthorized();
            if (s.state === 'connected') {
              soonRefreshInfo();
              latest.current.onConnected();
            }
          },
        },
      });
    })();
    const online = () => follower.current?.wake();
    window.addEventListener('online', online);
    return () => {
      cancelled = true;
      if (infoTimer) clearTimeout(infoTimer);
      window.removeEventListener('online', online);
      follower.current?.close();
      follower.current = null;
    };
  }, [client, sessionId, onUnauthorized]);

  const t = transcript.current;
  const view = t.view();
  const busy = view.busy || info?.status === 'processing';
  const schedules = useSchedules(client, sessionId, t.revision, schedulesOpen, onUnauthorized);
  const now = useNow(view.live !== null || view.pending.length > 0 || schedulesOpen);
  useEffect(() => {
    latest.current.onStatus(sessionId, { busy, waiting: view.pending.length });
  }, [sessionId, busy, view.pending.length]);

  const stop = useCallback(async () => {
    try {
      const r = await client.stop(sessionId);
      setNotice(r.stopped ? null : 'Nothing was running.');
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return onUnauthorized();
      setNotice(`Could not stop: ${err instanceof ApiError ? err.detail : String(err)}`);
    }
  }, [client, sessionId, onUnauthorized]);

  // Esc stops the running turn, wherever the focus is (an open editor of the title handles its own Esc).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || !busy) return;
      e.preventDefault();
      void stop();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [busy, stop]);

  // Keep the newest line in sight unless the person scrolled up.
  useEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  });

  const patch = async (body: Parameters<KesokuClient['patchSession']>[1]) => {
    try {
      setInfo(await client.patchSession(sessionId, body));
      latest.current.onActivity(sessionId, t.revision);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return onUnauthorized();
      setNotice(`Not changed: ${err instanceof ApiError ? err.detail : String(err)}`);
    }
  };

  const loadOlder = async () => {
    const before = t.oldestSeq;
    if (before === null) return;
    stick.current = false;
    const page = await client.getMessages(sessionId, { beforeSeq: before, limit: PAGE });
    t.prepend(page.messages, page.has_more === true);
    setVersion((v) => v + 1);
  };

  const unsent = props.outbox.filter((o) => o.sessionId === sessionId && !t.has(o.id));

  return (
    <section
      class={`chat${dragging ? ' dragging' : ''}`}
      aria-label="Conversation"
      onDragOver={(e) => {
        if (!e.dataTransfer?.types.includes('Files')) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setDragging(false);
      }}
      onDrop={(e) => {
        const files = [...(e.dataTransfer?.files ?? [])];
        setDragging(false);
        if (files.length === 0) return;
        e.preventDefault();
        setDropped({ files, at: Date.now() });
      }}
    >
      <ChatHeader
        sessionId={sessionId}
        info={info}
        busy={busy}
        onRename={(title) => void patch({ title })}
        onMode={(mode) => void patch({ mode })}
        onApproval={(approval) => void patch({ approval })}
        schedules={schedules.schedules.length}
        schedulesOpen={schedulesOpen}
        onSchedules={() => setSchedulesOpen(!schedulesOpen)}
      />
      <ConnectionBanner stream={stream} />
      <PlanPanel plan={activePlan(info?.plan, livePlan)} />
      <div class={`chat-body${schedulesOpen ? ' with-panel' : ''}`}>
        <div
          class="transcript"
          ref={scroller}
          role="log"
          aria-label="Messages"
          aria-live="polite"
          aria-relevant="additions"
          onScroll={(e) => {
            const el = e.currentTarget;
            stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
          }}
        >
          {t.hasOlder && (
            <button type="button" class="link older" onClick={() => void loadOlder()}>
              Show older messages
            </button>
          )}
          {loading && <p class="dim">Loading…</p>}
          {!loading && view.messages.length === 0 && unsent.length === 0 && !view.live && (
            <p class="empty dim">No messages yet. Say something to start the session.</p>
          )}
          {view.messages.map((m) => (
            <MessageView key={m.id} message={m} callOf={view.callOf} />
          ))}
          {unsent.map((o) => (
            <Unsent key={o.id} item={o} onRetry={props.onRetry} onDiscard={props.onDiscard} />
          ))}
          {view.live && <LiveTurnView live={view.live} now={now} />}
          {view.pending.map((p) => (
            <ApprovalCard
              key={p.call_id}
              client={client}
              sessionId={sessionId}
              pending={p}
              now={now}
              onUnauthorized={onUnauthorized}
            />
          ))}
          {notice && (
            <p class="msg notice" role="status">
              {notice}
            </p>
          )}
        </div>
        {schedulesOpen && (
          <SchedulesPanel
            client={client}
            sessionId={sessionId}
            state={schedules}
            sessionZone={info?.timezone ?? null}
            now={now}
            onUnauthorized={onUnauthorized}
            onClose={() => setSchedulesOpen(false)}
            onSessionZone={async (timezone) => {
              try {
                setInfo(await client.patchSession(sessionId, { timezone }));
                return null;
              } catch (err) {
                if (err instanceof ApiError && err.status === 401) onUnauthorized();
                return err instanceof ApiError ? err.detail : String(err);
              }
            }}
          />
        )}
      </div>
      <Composer
        limits={config.limits}
        busy={busy}
        dropped={dropped}
        onStop={() => void stop()}
        onSend={(content, attachments) => {
          stick.current = true;
          props.onSend(sessionId, content, attachments);
        }}
      />
    </section>
  );
}

function ConnectionBanner({ stream }: { stream: StreamState }) {
  switch (stream.state) {
    case 'connected':
      return null;
    case 'connecting':
      return (
        <p class="banner" role="status">
          Connecting…
        </p>
      );
    case 'lost':
      return (
        <p class="banner warn" role="status">
          Reconnecting…{' '}
          {stream.error.kind === 'unreachable' ? 'the Kesoku API is not reachable' : stream.error.detail}{' '}
          (attempt {stream.attempt}). Nothing is lost: messages you send now go out once it is back.
        </p>
      );
    case 'unauthorized':
      return (
        <p class="banner error" role="alert">
          The token is not accepted any more: sign in again.
        </p>
      );
    case 'not_found':
      return (
        <p class="banner error" role="alert">
          This session is not available to this token: {stream.error.detail}
        </p>
      );
  }
}

function Unsent({
  item,
  onRetry,
  onDiscard,
}: {
  item: OutboxItem;
  onRetry: (id: string) => void;
  onDiscard: (id: string) => void;
}) {
  const label = {
    sending: 'sending…',
    waiting: item.detail ?? 'not sent yet; it is sent when the API answers',
    failed: item.detail ?? 'not sent',
    accepted: 'sent',
  }[item.state];
  return (
    <div class={`msg user unsent ${item.state}`} data-outbox={item.state}>
      <span class="who">{WEB_SENDER}</span> <span class="sep">›</span>{' '}
      <span class="text">{item.content}</span>
      {item.attachments && item.attachments.length > 0 && (
        <ul class="attachments">
          {item.attachments.map((a) => (
            <li key={a.name}>📎 {a.name}</li>
          ))}
        </ul>
      )}
      <span
        class={`badge ${item.state === 'failed' ? 'error' : ''}`}
        role={item.state === 'failed' ? 'alert' : 'status'}
      >
        {label}
      </span>
      {(item.state === 'failed' || item.state === 'waiting') && (
        <span class="actions">
          <button type="button" class="link" onClick={() => onRetry(item.id)}>
            {item.state === 'failed' ? 'Retry' : 'Send now'}
          </button>
          <button type="button" class="link" onClick={() => onDiscard(item.id)}>
            Discard
          </button>
        </span>
      )}
    </div>
  );
}

function ApprovalCard(props: {
  client: KesokuClient;
  sessionId: string;
  pending: PendingDecision;
  now: number;
  onUnauthorized: () => void;
}) {
  const { client, sessionId, pending: p, now } = props;
  const [state, setState] = useState<{ busy: boolean; result: string | null }>({ busy: false, result: null });
  const decide = async (decision: 'approve' | 'deny' | 'always') => {
    setState({ busy: true, result: null });
    try {
      const r = await client.decideApproval(sessionId, p.call_id, decision);
      const done = { approve: 'Approved', deny: 'Denied', always: 'Approved (always)' }[decision];
      setState({ busy: true, result: `${done} by ${r.by}` });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return props.onUnauthorized();
      const already = err instanceof ApiError && err.status === 409;
      setState({
        busy: already,
        result: already
          ? 'Already decided'
          : `Not decided: ${err instanceof ApiError ? err.detail : String(err)}`,
      });
    }
  };
  const left = p.expiresAt !== null ? Math.max(0, (p.expiresAt - now) / 1000) : null;
  return (
    <section
      class="approval"
      role="group"
      aria-label={`Approval needed: ${p.tool_name}`}
      data-call={p.call_id}
    >
      <p>
        🔐 <strong>{p.tool_name}</strong> waits for your approval
        {left !== null && <span class="dim"> · denied in {formatSeconds(left)} without an answer</span>}
      </p>
      <pre class="subject">{p.subject}</pre>
      <div class="buttons">
        <button type="button" class="primary" disabled={state.busy} onClick={() => void decide('approve')}>
          Approve
        </button>
        <button type="button" disabled={state.busy} onClick={() => void decide('deny')}>
          Deny
        </button>
        <button
          type="button"
          disabled={state.busy}
          title="Approve this and the same kind of call for the rest of the session"
          onClick={() => void decide('always')}
        >
          Always
        </button>
      </div>
      {state.result && (
        <p class="dim" role="status">
          {state.result}
        </p>
      )}
    </section>
  );
}

const MODES = ['interrupt', 'queue'] as const;

function ChatHeader(props: {
  sessionId: string;
  info: SessionInfo | null;
  busy: boolean;
  onRename: (title: string) => void;
  onMode: (mode: 'interrupt' | 'queue') => void;
  onApproval: (policy: ApprovalPolicy | null) => void;
  /** How many schedules the session has, whether their panel is open, and its toggle. */
  schedules: number;
  schedulesOpen: boolean;
  onSchedules: () => void;
}) {
  const { info, sessionId } = props;
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const title = info?.title ?? (info ? sessionId : 'New session');
  const startEdit = () => {
    setDraft(info?.title ?? '');
    setEditing(true);
  };
  const pendingCount = info?.pending_approvals.length ?? 0;
  return (
    <header class="chat-header">
      <div class="title-row">
        {editing ? (
          <form
            class="rename"
            onSubmit={(e) => {
              e.preventDefault();
              if (draft.trim() !== '') props.onRename(draft.trim());
              setEditing(false);
            }}
          >
            <input
              aria-label="Session title"
              value={draft}
              maxLength={200}
              ref={(el) => el?.focus()}
              onInput={(e) => setDraft(e.currentTarget.value)}
              onKeyDown={(e) => {
                if (e.key === 'Escape') {
                  e.preventDefault();
                  setEditing(false);
                }
              }}
            />
            <button type="submit">Save</button>
          </form>
        ) : (
          <h1>
            <button
              type="button"
              class="title"
              onClick={startEdit}
              aria-label={`Rename session: ${title}`}
              title="Rename"
            >
              {title} <span aria-hidden="true">✎</span>
            </button>
          </h1>
        )}
        <span class="badge channel" title="channel">
          {info?.chatbot_id ?? 'api'}
        </span>
        <span
          class={`badge status ${props.busy ? 'busy' : 'idle'}`}
          role="status"
          aria-label="Session status"
        >
          {pendingCount > 0 ? '✋ waiting for approval' : props.busy ? '● working' : 'idle'}
        </span>
      </div>
      <div class="controls">
        <label>
          Mode{' '}
          <select
            aria-label="Mode: what a new message does while a turn runs"
            value={info?.mode ?? 'interrupt'}
            onChange={(e) => props.onMode(e.currentTarget.value as 'interrupt' | 'queue')}
          >
            {MODES.map((m) => (
              <option
                key={m}
                value={m}
                title={
                  m === 'interrupt'
                    ? 'a new message stops the running turn'
                    : 'a new message waits for the running turn'
                }
              >
                {m}
              </option>
            ))}
          </select>
        </label>
        <label>
          Approval{' '}
          <select
            aria-label="Tool approval: which tool calls ask before they run"
            value={info?.approval ?? 'default'}
            onChange={(e) => {
              const v = e.currentTarget.value;
              props.onApproval(v === 'default' ? null : (v as ApprovalPolicy));
            }}
          >
            <option value="default">default{info ? ` (${info.approval_in_force})` : ''}</option>
            <option value="off" title="nothing asks">
              off
            </option>
            <option value="writes" title="commands and file writes ask">
              writes
            </option>
            <option value="all" title="every tool call asks">
              all
            </option>
          </select>
        </label>
        <button
          type="button"
          class={`schedules-toggle${props.schedulesOpen ? ' on' : ''}`}
          aria-expanded={props.schedulesOpen}
          aria-controls="schedules-panel"
          aria-label={`Schedules (${props.schedules})`}
          onClick={props.onSchedules}
        >
          ⏰ Schedules{props.schedules > 0 ? ` (${props.schedules})` : ''}
        </button>
      </div>
    </header>
  );
}
