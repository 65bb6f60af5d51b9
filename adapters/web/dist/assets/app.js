/* Built by adapters/web/build.ts from adapters/web/src: edit the sources, then rebuild. */
/* eslint-disable */
import {
  A as d,
  C as bash,
  D as F,
  E as A,
  M as $,
  N as Q,
  O as T,
  S as c,
  T as purify_default,
  _ as go,
  a as xml,
  b as css,
  c as shell,
  d as plaintext,
  f as markdown,
  g as ini,
  h as java,
  i as yaml,
  j as w,
  k as b,
  l as rust,
  m as javascript,
  n as a,
  o as typescript,
  p as json,
  r as ne,
  s as sql,
  t as createParser,
  u as python,
  v as dockerfile,
  w as core_default,
  x as cpp,
  y as diff,
} from './vendor.js';
// adapters/web/src/api.ts
/** Every failure of a {@link KesokuClient} call. */
var ApiError = class extends Error {
  kind;
  /** HTTP status, when there was an answer. */
  status;
  problem;
  constructor(kind, message, opts = {}) {
    super(message);
    this.name = 'ApiError';
    this.kind = kind;
    this.status = opts.status ?? null;
    this.problem = opts.problem ?? null;
  }
  /** What the person reads: the problem's detail, or why there was no answer. */
  get detail() {
    return this.problem?.detail ?? this.message;
  }
};
/** Typed calls of REST API v1. Every method throws {@link ApiError} and nothing else. */
var KesokuClient = class {
  token;
  baseUrl;
  timeoutMs;
  constructor(opts) {
    this.token = opts.token;
    this.baseUrl = (opts.baseUrl ?? '').replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? 2e4;
  }
  /** `GET /v1/sessions`: one page, newest first. */
  listSessions(opts = {}) {
    const q = new URLSearchParams();
    q.set('limit', String(opts.limit ?? 100));
    if (opts.cursor) q.set('cursor', opts.cursor);
    return this.call('GET', `/v1/sessions?${q}`);
  }
  /** `GET /v1/sessions/{id}`; null when the session has no row yet (404: nothing was sent to it). */
  async getSession(id) {
    try {
      return await this.call('GET', this.path(id));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
  }
  /** `GET /v1/sessions/{id}/messages`: the newest `limit`, older ones before `beforeSeq`, or the delta after `afterRevision`. */
  getMessages(id, opts = {}) {
    const q = new URLSearchParams();
    if (opts.afterRevision !== void 0) q.set('after_revision', String(opts.afterRevision));
    if (opts.beforeSeq !== void 0) q.set('before_seq', String(opts.beforeSeq));
    if (opts.limit !== void 0) q.set('limit', String(opts.limit));
    return this.call('GET', `${this.path(id)}/messages${q.size > 0 ? `?${q}` : ''}`);
  }
  /**
   * `POST /v1/sessions/{id}/messages` without `wait`. `id` is the idempotency key: the same post repeated after a
   * lost answer (or from another tab) is acknowledged with `duplicate: true` and queued once.
   */
  postMessage(id, body) {
    return this.call('POST', `${this.path(id)}/messages`, body);
  }
  /** `PATCH /v1/sessions/{id}`: before the first message it creates the session with these settings. */
  patchSession(id, body) {
    return this.call('PATCH', this.path(id), body);
  }
  /** `POST /v1/sessions/{id}/stop`. */
  stop(id) {
    return this.call('POST', `${this.path(id)}/stop`);
  }
  /** `POST /v1/sessions/{id}/tool-calls/{callId}/approval`. */
  decideApproval(id, callId, decision) {
    return this.call('POST', `${this.path(id)}/tool-calls/${encodeURIComponent(callId)}/approval`, {
      decision,
    });
  }
  /** `GET /v1/sessions/{id}/schedules`, each with its last runs; empty when the session has no row yet. */
  async listSchedules(id) {
    try {
      return (await this.call('GET', `${this.path(id)}/schedules`)).schedules;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return [];
      throw err;
    }
  }
  /** `POST /v1/sessions/{id}/schedules` (it claims a session without a row, as a first message would). */
  createSchedule(id, body) {
    return this.call('POST', `${this.path(id)}/schedules`, body);
  }
  /** `PATCH /v1/sessions/{id}/schedules/{scheduleId}`: pause (`true`) or resume (`false`). */
  pauseSchedule(id, scheduleId, paused) {
    return this.call('PATCH', this.schedulePath(id, scheduleId), { paused });
  }
  /** `POST /v1/sessions/{id}/schedules/{scheduleId}/trigger`: one run now, also when paused. */
  triggerSchedule(id, scheduleId) {
    return this.call('POST', `${this.schedulePath(id, scheduleId)}/trigger`);
  }
  /** `DELETE /v1/sessions/{id}/schedules/{scheduleId}`. */
  deleteSchedule(id, scheduleId) {
    return this.call('DELETE', this.schedulePath(id, scheduleId));
  }
  /**
   * Opens `GET /v1/sessions/{id}/events` resuming after `afterRevision` (`Last-Event-ID`). The caller reads the body
   * and aborts `signal` to close it.
   */
  async openEvents(id, afterRevision, signal) {
    const headers = {
      ...this.auth(),
      accept: 'text/event-stream',
      'last-event-id': String(afterRevision),
    };
    const res = await this.send(`${this.path(id)}/events`, {
      headers,
      signal,
      cache: 'no-store',
    });
    if (!res.ok) throw await failure(res);
    if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      await res.body?.cancel();
      throw new ApiError('protocol', 'the event stream is not text/event-stream', { status: res.status });
    }
    return res;
  }
  path(id) {
    return `/v1/sessions/${encodeURIComponent(id)}`;
  }
  schedulePath(id, scheduleId) {
    return `${this.path(id)}/schedules/${encodeURIComponent(scheduleId)}`;
  }
  auth() {
    const token = this.token();
    return token ? { authorization: `Bearer ${token}` } : {};
  }
  async call(method, path, body) {
    const headers = {
      ...this.auth(),
      accept: 'application/json',
    };
    if (body !== void 0) headers['content-type'] = 'application/json';
    const res = await this.send(path, {
      method,
      headers,
      body: body === void 0 ? void 0 : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
      cache: 'no-store',
    });
    if (!res.ok) throw await failure(res);
    try {
      return await res.json();
    } catch {
      throw new ApiError('protocol', `${method} ${path} answered ${res.status} without JSON`, {
        status: res.status,
      });
    }
  }
  async send(path, init) {
    try {
      return await fetch(`${this.baseUrl}${path}`, init);
    } catch (err) {
      throw new ApiError(
        'unreachable',
        `the Kesoku API did not answer (${err instanceof Error ? err.message : String(err)})`,
      );
    }
  }
};
/** The ApiError of an error answer, with its problem body when it has one. */
async function failure(res) {
  const text = await res.text().catch(() => '');
  let problem = null;
  try {
    const parsed = JSON.parse(text);
    if (typeof parsed?.detail === 'string' && typeof parsed.status === 'number') problem = parsed;
  } catch {}
  const message = problem ? `${problem.title} (${problem.status}): ${problem.detail}` : `HTTP ${res.status}`;
  return new ApiError(problem || res.status >= 500 ? 'problem' : 'protocol', message, {
    status: res.status,
    problem,
  });
}
// domain/message.ts
/** The well-known senders of docs/message-model.md §3. */
var SENDERS = {
  agent: 'Kesoku',
  system: 'System',
  cronjob: 'Cronjob',
  notification: 'Notification',
};
// domain/status-machine.ts
/**
 * docs/message-model.md §2.3 / §4.1: the user-message (input) lifecycle. Also used by every other trigger the worker claims
 * (cron prompts, compaction prompts, background alerts).
 */
var INPUT_STATUSES = ['pending_agent', 'processing', 'processed', 'interrupted', 'error'];
/** Statuses with no way out (docs/message-model.md §3 "终态 status"): a message here never changes status again. */
var TERMINAL_STATUSES = ['processed', 'interrupted', 'error', 'delivered'];
[...TERMINAL_STATUSES];
/** True when `status` belongs to the input (user-message) lifecycle of docs/message-model.md §4.1. */
function isInputStatus(status) {
  return INPUT_STATUSES.includes(status);
}
/** True when no transition leaves `status`. */
function isTerminalStatus(status) {
  return TERMINAL_STATUSES.includes(status);
}
// domain/message-kind.ts
/**
 * Which row of the docs/message-model.md §3 field matrix a stored message belongs to. History rules, transpilation and
 * presentation all decide by kind, so the classification lives here once.
 *
 * Pure module: no I/O, importable by workflow code.
 */
/** docs/message-model.md §3 "系统提示词": the virtual system-prompt record uses `"system"` as both chatbot_id and channel_id. */
var SYSTEM_PROMPT_ADDRESS = {
  chatbot_id: 'system',
  channel_id: 'system',
};
/**
 * Classifies a message into its docs/message-model.md §3 row. Total: messages outside the matrix fall back by type, then by role.
 *
 * - user text: `is_compaction` → manual_compaction_prompt, `is_cronjob` → cron_prompt, else user_question;
 * - system text: chatbot_id `"system"` → system_prompt; an input-lifecycle status (pending_agent … error) →
 *   background_alert; otherwise (responded/delivered) → empty_reply_nudge;
 * - assistant text: sender `"Notification"` → notification; `metadata.failure_kind` set → crash_notice (the
 *   spec gives both the crash notice and the final reply sender "Kesoku"; Kesoku tells them apart by the
 *   failure kind it records on the notice); else final_reply.
 */
function messageKind(message) {
  switch (message.type) {
    case 'thought':
    case 'tool_call':
    case 'tool_result':
      return message.type;
  }
  const metadata = message.metadata ?? {};
  switch (message.role) {
    case 'user':
      if (metadata.is_compaction === true) return 'manual_compaction_prompt';
      if (metadata.is_cronjob === true) return 'cron_prompt';
      return 'user_question';
    case 'system':
      if (message.chatbot_id === SYSTEM_PROMPT_ADDRESS.chatbot_id) return 'system_prompt';
      return isInputStatus(message.status) ? 'background_alert' : 'empty_reply_nudge';
    case 'assistant':
    case 'tool':
      if (message.sender === SENDERS.notification) return 'notification';
      if (typeof metadata.failure_kind === 'string') return 'crash_notice';
      return 'final_reply';
  }
}
// domain/presentation.ts
/**
 * docs/message-model.md §5.3, as data. Google Chat's "折叠中间卡片" (folded intermediate card) and the "状态 emoji 变更" of tool
 * output are `live`. The `api` column is Kesoku's: REST clients get intermediate messages as live turn
 * snapshots over SSE, and final text as a message.
 */
var VISIBILITY_MATRIX = {
  cli: {
    user_question: 'shown',
    final_text: 'shown',
    thought: 'shown',
    tool_call: 'shown',
    tool_result: 'shown',
    system_log: 'shown',
  },
  discord: {
    user_question: 'shown',
    final_text: 'shown',
    thought: 'live',
    tool_call: 'live',
    tool_result: 'live',
    system_log: 'live',
  },
  google_chat: {
    user_question: 'shown',
    final_text: 'shown',
    thought: 'live',
    tool_call: 'live',
    tool_result: 'live',
    system_log: 'live',
  },
  wechat: {
    user_question: 'shown',
    final_text: 'shown',
    thought: 'silent',
    tool_call: 'silent',
    tool_result: 'silent',
    system_log: 'silent',
  },
  api: {
    user_question: 'shown',
    final_text: 'shown',
    thought: 'live',
    tool_call: 'live',
    tool_result: 'live',
    system_log: 'live',
  },
};
/**
 * Which §5.3 row a message kind is presented as; null for kinds no channel ever receives (docs/message-model.md §3 "不可见"):
 * the system prompt, background alerts and empty-reply nudges.
 */
var PRESENTATION_KIND_OF = {
  user_question: 'user_question',
  cron_prompt: 'user_question',
  manual_compaction_prompt: 'user_question',
  thought: 'thought',
  final_reply: 'final_text',
  tool_call: 'tool_call',
  tool_result: 'tool_result',
  system_prompt: null,
  background_alert: null,
  empty_reply_nudge: null,
  notification: 'system_log',
  crash_notice: 'final_text',
};
/**
 * How `channel` presents `message` (docs/message-model.md §5.3): `shown`, `live` or `silent` per {@link VISIBILITY_MATRIX}, or
 * `hidden` when the message is never delivered at all (system prompt, background alert, nudge).
 */
function presentationFor(channel, message) {
  const kind = PRESENTATION_KIND_OF[messageKind(message)];
  return kind === null ? 'hidden' : VISIBILITY_MATRIX[channel][kind];
}
/** Seconds for people: "0.4s", "2.1s", "42s", "3m 05s". */
function formatSeconds(s) {
  if (s < 10) return `${(Math.round(s * 10) / 10).toFixed(1)}s`;
  if (s < 60) return `${Math.round(s)}s`;
  const m = Math.floor(s / 60);
  return `${m}m ${String(Math.round(s - m * 60)).padStart(2, '0')}s`;
}
/** docs/message-model.md §3 `turn_metrics` for people, shared by every channel: "⏱ 2.1s · 🔧 1 tool · 1042 tokens". */
function metricsSummary(m) {
  const tools = `🔧 ${m.turn_tool_calls} ${m.turn_tool_calls === 1 ? 'tool' : 'tools'}`;
  return `⏱ ${formatSeconds(m.turn_time)} · ${tools} · ${m.turn_tokens} tokens`;
}
/** The emoji of each tool state in the live status. */
var TOOL_MARK = {
  running: '⏳',
  ok: '✅',
  failed: '❌',
  interrupted: '⏹️',
};
/**
 * Whether a tool_result reports success. `metadata.tool_ok` (boolean) wins when present; otherwise the summary
 * the tool activity wrote (activities/tools/shell.ts `summarizeShellRun`, `error: …`, `interrupted`) decides.
 */
function toolResultState(result) {
  const md = result.metadata ?? {};
  if (typeof md.tool_ok === 'boolean') return md.tool_ok ? 'ok' : 'failed';
  const summary = typeof md.tool_result === 'string' ? md.tool_result : '';
  if (md.synthetic === true || summary === 'interrupted') return 'interrupted';
  if (/^(error:|timed out after |killed by |exit -?[1-9]\d* in )/.test(summary)) return 'failed';
  return 'ok';
}
/**
 * The server and tool parts of an MCP tool's name, or null for another tool. The server part never holds `__`
 * (activities/mcp/names.ts), so the first `__` after the prefix ends it.
 */
function mcpNameParts(name) {
  if (!name.startsWith('mcp__')) return null;
  const rest = name.slice(5);
  const cut = rest.indexOf('__');
  if (cut <= 0 || cut + 2 >= rest.length) return null;
  return {
    server: rest.slice(0, cut),
    tool: rest.slice(cut + 2),
  };
}
/** `<server> › <tool>` for an MCP tool, the name itself for any other (e.g. `run_shell_command`). */
function toolLabel(name) {
  const parts = mcpNameParts(name);
  return parts ? `${parts.server} › ${parts.tool}` : name;
}
// adapters/web/src/markdown.tsx
/**
 * Replies as Markdown, made safe: `marked` turns the text into HTML, DOMPurify keeps only inert formatting (no
 * script, no event handler attributes, no `style`, no forms or frames, no images — a model's image link could
 * carry data out in its URL, so images become plain links — and only `http:`, `https:` and `mailto:` links, which
 * open in a new tab without a referrer), and code blocks are highlighted by highlight.js with a copy button. The
 * page's Content-Security-Policy (api/routes/web.ts) is the second wall: even markup that slipped through could run
 * no inline script and load nothing from elsewhere.
 */
for (const [name, lang] of Object.entries({
  bash,
  c,
  cpp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  markdown,
  plaintext,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
}))
  core_default.registerLanguage(name, lang);
var escapeHtml = (s) =>
  s.replace(
    /[&<>"']/g,
    (ch) =>
      ({
        '&': '&amp;',
        '<': '&lt;',
        '>': '&gt;',
        '"': '&quot;',
        "'": '&#39;',
      })[ch] ?? ch,
  );
var marked = new ne({
  gfm: true,
  breaks: true,
  renderer: {
    image({ href, text }) {
      const label = escapeHtml(text || href);
      return `<a href="${escapeHtml(href)}">🖼 ${label}</a>`;
    },
  },
});
var FORBID_TAGS = [
  'style',
  'img',
  'svg',
  'math',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'option',
  'iframe',
  'frame',
  'object',
  'embed',
  'video',
  'audio',
  'source',
  'picture',
  'link',
  'meta',
  'base',
];
purify_default.addHook('uponSanitizeAttribute', (_node, data) => {
  if (data.attrName === 'class') data.keepAttr = /^language-[\w+-]+$/.test(data.attrValue);
  if (data.attrName === 'id' || data.attrName === 'name') data.keepAttr = false;
});
purify_default.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    if (node.hasAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer nofollow');
    }
  }
});
/** Markdown text as sanitised HTML (a string for `dangerouslySetInnerHTML`). */
function renderMarkdown(text) {
  const html = marked.parse(text, { async: false });
  return purify_default.sanitize(html, {
    FORBID_TAGS,
    FORBID_ATTR: ['style', 'srcset', 'formaction', 'xlink:href', 'action'],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  });
}
/** Highlights the code blocks under `root` and gives each a copy button (idempotent). */
function decorate(root) {
  for (const code of root.querySelectorAll('pre > code')) {
    if (code.dataset.decorated === '1') continue;
    code.dataset.decorated = '1';
    const lang = /language-([\w+-]+)/.exec(code.className)?.[1];
    if (lang && core_default.getLanguage(lang)) {
      code.innerHTML = core_default.highlight(code.textContent ?? '', { language: lang }).value;
      code.classList.add('hljs');
    } else if ((code.textContent ?? '').length < 2e4) {
      const auto = core_default.highlightAuto(code.textContent ?? '');
      if (auto.relevance > 5) code.innerHTML = auto.value;
      code.classList.add('hljs');
    }
    const pre = code.parentElement;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy code');
    button.addEventListener(
      'click',
      () => void copyText((code.textContent ?? '').replace(/\n$/, ''), button),
    );
    pre.insertBefore(button, code);
  }
}
/** Copies `text`; the button says whether it worked. */
async function copyText(text, button) {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    ok = document.execCommand('copy');
    area.remove();
  }
  button.textContent = ok ? 'Copied ✓' : 'Copy failed';
  setTimeout(() => (button.textContent = 'Copy'), 1500);
}
/** A Markdown block. `streaming`: the text is still growing (no copy buttons until it is whole). */
function Markdown({ text, streaming = false }) {
  const html = w(() => renderMarkdown(text), [text]);
  const ref = T(null);
  F(() => {
    if (ref.current && !streaming) decorate(ref.current);
  }, [html, streaming]);
  return /* @__PURE__ */ a('div', {
    class: 'markdown',
    ref,
    dangerouslySetInnerHTML: { __html: html },
  });
}
// adapters/web/src/message.tsx
/** "⏱ 2.1s · 🔧 1 tool · 1042 tokens · turn 3", as the terminal client prints it. */
function metricsLine(m) {
  return `${metricsSummary(m)} · turn ${m.session_turns}`;
}
/** Bytes for people: "512 B", "12.3 KiB", "1.5 MiB". */
function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1048576) return `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
var OUTPUT_CHARS = 2e4;
var SECTION = /^=== (STDOUT|STDERR) ===$/;
/** Shell output without its empty sections and the STDOUT marker (architecture.md "Tools" format). */
function outputText(content) {
  const lines = content.replace(/\s+$/, '').split('\n');
  if (!lines.some((l) => SECTION.test(l))) return content.replace(/\s+$/, '');
  const out = [];
  let section = '';
  let buffer = [];
  const push = () => {
    const text = buffer.join('\n').trim();
    if (text !== '') out.push(section === 'STDERR' ? `stderr:\n${text}` : text);
    buffer = [];
  };
  for (const l of lines) {
    const marker = SECTION.exec(l);
    if (marker) {
      push();
      section = marker[1] ?? '';
    } else buffer.push(l);
  }
  push();
  return out.join('\n');
}
function toolStart(call) {
  if (!call) return null;
  const approval = call.metadata?.approval;
  const t = Date.parse(approval?.at ?? call.created_at);
  return Number.isFinite(t) ? t : null;
}
/** One message; null for kinds people never see (the caller filters those already). */
function MessageView({ message: m, callOf }) {
  switch (messageKind(m)) {
    case 'user_question':
      return /* @__PURE__ */ a(UserMessage, { m });
    case 'cron_prompt':
      return /* @__PURE__ */ a('div', {
        class: 'msg user cron',
        children: [
          /* @__PURE__ */ a('span', {
            class: 'who',
            children: ['⏰ ', m.sender],
          }),
          ' ',
          /* @__PURE__ */ a('span', {
            class: 'sep',
            children: '›',
          }),
          ' ',
          /* @__PURE__ */ a('span', {
            class: 'text',
            children: m.content,
          }),
        ],
      });
    case 'manual_compaction_prompt':
      return /* @__PURE__ */ a('div', {
        class: 'msg notice',
        children: ['⟳ compaction requested (', m.sender, ')'],
      });
    case 'thought':
      return /* @__PURE__ */ a('details', {
        class: 'panel thought',
        children: [
          /* @__PURE__ */ a('summary', {
            children: [
              /* @__PURE__ */ a('span', {
                class: 'title',
                children: '💭 thought',
              }),
              ' ',
              /* @__PURE__ */ a('span', {
                class: 'preview',
                children: firstLine(m.content),
              }),
            ],
          }),
          /* @__PURE__ */ a('pre', {
            class: 'body',
            children: m.content.trim() || '(empty)',
          }),
        ],
      });
    case 'tool_call':
      return /* @__PURE__ */ a(ToolCall, { m });
    case 'tool_result':
      return /* @__PURE__ */ a(ToolResult, {
        m,
        call: callOf?.(m),
      });
    case 'final_reply':
      return /* @__PURE__ */ a(Reply, { m });
    case 'notification':
      return /* @__PURE__ */ a('div', {
        class: 'msg notice',
        children: ['· ', m.content],
      });
    case 'crash_notice':
      return /* @__PURE__ */ a('div', {
        class: 'msg crash',
        role: 'alert',
        children: m.content,
      });
    default:
      return null;
  }
}
function firstLine(s) {
  const line = s.trim().split('\n')[0] ?? '';
  return line.length > 90 ? `${line.slice(0, 90)}…` : line;
}
function UserMessage({ m }) {
  const attachments = m.metadata?.attachments ?? [];
  return /* @__PURE__ */ a('div', {
    class: 'msg user',
    children: [
      /* @__PURE__ */ a('span', {
        class: 'who',
        children: m.sender,
      }),
      ' ',
      /* @__PURE__ */ a('span', {
        class: 'sep',
        children: '›',
      }),
      ' ',
      /* @__PURE__ */ a('span', {
        class: 'text',
        children: m.content,
      }),
      attachments.length > 0 &&
        /* @__PURE__ */ a('ul', {
          class: 'attachments',
          'aria-label': 'Attachments',
          children: attachments.map((a$2) =>
            /* @__PURE__ */ a(
              'li',
              { children: ['📎 ', a$2.name, a$2.size !== void 0 ? ` (${formatBytes(a$2.size)})` : ''] },
              a$2.name,
            ),
          ),
        }),
      m.status === 'interrupted' &&
        /* @__PURE__ */ a('span', {
          class: 'badge',
          children: 'interrupted',
        }),
      m.status === 'error' &&
        /* @__PURE__ */ a('span', {
          class: 'badge error',
          children: 'failed',
        }),
    ],
  });
}
function ToolCall({ m }) {
  const name = toolLabel(m.metadata?.tool_name ?? 'tool');
  const args = m.metadata?.tool_arguments;
  const approval = m.metadata?.approval;
  const command = typeof args?.command === 'string' ? args.command : null;
  const rest = args ? Object.entries(args).filter(([k]) => k !== 'command' || command === null) : [];
  return /* @__PURE__ */ a('details', {
    class: 'panel tool-call',
    children: [
      /* @__PURE__ */ a('summary', {
        children: [
          /* @__PURE__ */ a('span', {
            class: 'title',
            children: ['🔧 ', name],
          }),
          command !== null &&
            /* @__PURE__ */ a('code', {
              class: 'preview',
              children: ['$ ', firstLine(command)],
            }),
          approval &&
            approval.state !== 'pending' &&
            /* @__PURE__ */ a('span', {
              class: `badge approval-${approval.state}`,
              children: [approval.state.replace('_', ' '), approval.by ? ` by ${approval.by}` : ''],
            }),
        ],
      }),
      /* @__PURE__ */ a('pre', {
        class: 'body',
        children: [
          command !== null &&
            /* @__PURE__ */ a('span', {
              class: 'dim',
              children: '$ ',
            }),
          command,
          rest.map(([k, v]) =>
            /* @__PURE__ */ a(
              'span',
              {
                children: [
                  '\n',
                  /* @__PURE__ */ a('span', {
                    class: 'dim',
                    children: [k, ': '],
                  }),
                  typeof v === 'string' ? v : JSON.stringify(v, null, 2),
                ],
              },
              k,
            ),
          ),
          !args && m.content,
        ],
      }),
    ],
  });
}
function ToolResult({ m, call }) {
  const name = toolLabel(m.metadata?.tool_name ?? m.sender);
  const state = toolResultState(m);
  const summary = (m.metadata?.tool_result ?? '').trim();
  const output = outputText(m.content);
  const start = m.metadata?.synthetic === true ? null : toolStart(call);
  const end = Date.parse(m.created_at);
  const took =
    start !== null && Number.isFinite(end) && end >= start ? formatSeconds((end - start) / 1e3) : null;
  const shown = output.length > OUTPUT_CHARS ? `${output.slice(0, OUTPUT_CHARS)}\n… (cut here)` : output;
  return /* @__PURE__ */ a('details', {
    class: `panel tool-result ${state}`,
    children: [
      /* @__PURE__ */ a('summary', {
        children: [
          /* @__PURE__ */ a('span', {
            class: 'title',
            children: [TOOL_MARK[state], ' ', name],
          }),
          summary !== '' &&
            /* @__PURE__ */ a('span', {
              class: 'preview',
              children: summary,
            }),
          took !== null &&
            /* @__PURE__ */ a('span', {
              class: 'elapsed',
              children: took,
            }),
        ],
      }),
      /* @__PURE__ */ a('pre', {
        class: 'body',
        children: shown === '' ? '(no output)' : shown,
      }),
      typeof m.metadata?.full_output_path === 'string' &&
        /* @__PURE__ */ a('p', {
          class: 'dim',
          children: ['full output: ', m.metadata.full_output_path],
        }),
    ],
  });
}
function Reply({ m }) {
  const summary = m.metadata?.compacted_through_seq !== void 0;
  const metrics = m.metadata?.turn_metrics;
  return /* @__PURE__ */ a('div', {
    class: 'msg reply',
    children: [
      /* @__PURE__ */ a('span', {
        class: 'who',
        children: summary ? `${m.sender} (summary)` : m.sender,
      }),
      ' ',
      /* @__PURE__ */ a('span', {
        class: 'sep',
        children: '›',
      }),
      /* @__PURE__ */ a(Markdown, { text: m.content }),
      metrics &&
        /* @__PURE__ */ a('div', {
          class: 'metrics',
          children: metricsLine(metrics),
        }),
    ],
  });
}
// adapters/web/src/composer.tsx
/**
 * Where the person writes: Enter sends, Shift+Enter makes a new line, Esc stops the running turn (handled by the
 * chat view for the whole page). Files come as attachments from the 📎 button, by drag and drop onto the chat, or
 * by pasting; each is checked against the API's limits before anything is uploaded (a file over the inline limit,
 * too many files, or a message over the body limit is refused here, naming the limit), then read as base64 and
 * sent with the message (README "REST API v1", Attachments).
 */
var utf8Length = (s) => new TextEncoder().encode(s).length;
var base64Length = (bytes) => Math.ceil(bytes / 3) * 4;
/** Room the JSON body needs besides the content and the files' data. */
var BODY_OVERHEAD = 2048;
function readBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error ?? /* @__PURE__ */ new Error('the file could not be read'));
    reader.readAsDataURL(file);
  });
}
function Composer({ limits, busy, disabled, onSend, onStop, dropped }) {
  const [text, setText] = d('');
  const [files, setFiles] = d([]);
  const [problem, setProblem] = d(null);
  const input = T(null);
  const lastDrop = T(0);
  const bodyBytes = (content, list) =>
    utf8Length(content) + list.reduce((n, f) => n + base64Length(f.size), 0) + BODY_OVERHEAD;
  /** Takes files unless a limit refuses them; says which limit. */
  const addFiles = (incoming) => {
    if (incoming.length === 0) return;
    const problems = [];
    const accepted = [];
    const taken = () => [...files, ...accepted.map((a) => a.picked)];
    for (const f of incoming) {
      if (f.size > limits.attachmentBytes) {
        problems.push(
          `${f.name} is ${formatBytes(f.size)}: files are sent up to ${formatBytes(limits.attachmentBytes)} each`,
        );
        continue;
      }
      if (taken().length >= limits.attachments) {
        problems.push(`${f.name} not added: at most ${limits.attachments} files per message`);
        continue;
      }
      if (bodyBytes(text, [...taken(), f]) > limits.bodyBytes) {
        problems.push(
          `${f.name} not added: the files of one message share ${formatBytes(limits.bodyBytes)} (base64 included)`,
        );
        continue;
      }
      const key = `${f.name}-${f.size}-${Math.random().toString(36).slice(2)}`;
      accepted.push({
        picked: {
          key,
          name: f.name,
          size: f.size,
          type: f.type,
          data: null,
        },
        file: f,
      });
    }
    setProblem(problems.length > 0 ? problems.join('; ') : null);
    if (accepted.length === 0) return;
    setFiles((list) => [...list, ...accepted.map((a) => a.picked)]);
    for (const { picked, file } of accepted)
      readBase64(file).then(
        (data) =>
          setFiles((list) =>
            list.map((x) =>
              x.key === picked.key
                ? {
                    ...x,
                    data,
                  }
                : x,
            ),
          ),
        () => {
          setFiles((list) => list.filter((x) => x.key !== picked.key));
          setProblem(`${picked.name} could not be read`);
        },
      );
  };
  A(() => {
    if (!dropped || dropped.at === lastDrop.current) return;
    lastDrop.current = dropped.at;
    addFiles(dropped.files);
  }, [dropped]);
  const send = () => {
    const content = text.trim();
    if (content === '' && files.length === 0) return;
    if (files.some((f) => f.data === null)) {
      setProblem('still reading the files; send again in a moment');
      return;
    }
    if (utf8Length(content) > limits.contentBytes) {
      setProblem(
        `the message is ${formatBytes(utf8Length(content))}: messages are up to ${formatBytes(limits.contentBytes)}`,
      );
      return;
    }
    if (bodyBytes(content, files) > limits.bodyBytes) {
      setProblem(
        `the message with its files is over ${formatBytes(limits.bodyBytes)}, the most one message may carry`,
      );
      return;
    }
    onSend(
      content,
      files.map((f) => ({
        name: f.name,
        size: f.size,
        data: f.data,
        ...(f.type ? { content_type: f.type } : {}),
      })),
    );
    setText('');
    setFiles([]);
    setProblem(null);
  };
  return /* @__PURE__ */ a('form', {
    class: 'composer',
    'aria-label': 'Write a message',
    onSubmit: (e) => {
      e.preventDefault();
      send();
    },
    children: [
      files.length > 0 &&
        /* @__PURE__ */ a('ul', {
          class: 'picked',
          'aria-label': 'Files to send',
          children: files.map((f) =>
            /* @__PURE__ */ a(
              'li',
              {
                children: [
                  '📎 ',
                  f.name,
                  ' ',
                  /* @__PURE__ */ a('span', {
                    class: 'dim',
                    children: ['(', formatBytes(f.size), ')'],
                  }),
                  f.data === null &&
                    /* @__PURE__ */ a('span', {
                      class: 'dim',
                      children: ' reading…',
                    }),
                  /* @__PURE__ */ a('button', {
                    type: 'button',
                    class: 'link',
                    'aria-label': `Remove ${f.name}`,
                    onClick: () => setFiles((list) => list.filter((x) => x.key !== f.key)),
                    children: '✕',
                  }),
                ],
              },
              f.key,
            ),
          ),
        }),
      problem &&
        /* @__PURE__ */ a('p', {
          class: 'problem',
          role: 'alert',
          children: problem,
        }),
      /* @__PURE__ */ a('p', {
        id: 'composer-keys',
        class: 'hint dim',
        children: [
          /* @__PURE__ */ a('kbd', { children: 'Enter' }),
          ' sends · ',
          /* @__PURE__ */ a('kbd', { children: 'Shift' }),
          '+',
          /* @__PURE__ */ a('kbd', { children: 'Enter' }),
          ' new line · ',
          /* @__PURE__ */ a('kbd', { children: 'Esc' }),
          ' stops · drop or paste files to attach',
        ],
      }),
      /* @__PURE__ */ a('div', {
        class: 'row',
        children: [
          /* @__PURE__ */ a('button', {
            type: 'button',
            class: 'icon',
            'aria-label': 'Attach files',
            title: 'Attach files',
            onClick: () => input.current?.click(),
            children: '📎',
          }),
          /* @__PURE__ */ a('input', {
            ref: input,
            type: 'file',
            multiple: true,
            hidden: true,
            'aria-hidden': 'true',
            tabIndex: -1,
            onChange: (e) => {
              const el = e.currentTarget;
              addFiles([...(el.files ?? [])]);
              el.value = '';
            },
          }),
          /* @__PURE__ */ a('textarea', {
            'aria-label': 'Message',
            placeholder: 'Message Kesoku',
            'aria-describedby': 'composer-keys',
            rows: 1,
            value: text,
            disabled,
            onInput: (e) => setText(e.currentTarget.value),
            onKeyDown: (e) => {
              if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
                e.preventDefault();
                send();
              }
            },
            onPaste: (e) => {
              const pasted = [...(e.clipboardData?.files ?? [])];
              if (pasted.length > 0) {
                e.preventDefault();
                addFiles(pasted);
              }
            },
          }),
          busy &&
            /* @__PURE__ */ a('button', {
              type: 'button',
              class: 'stop',
              onClick: onStop,
              'aria-label': 'Stop the running turn (Esc)',
              children: '⏹ Stop',
            }),
          /* @__PURE__ */ a('button', {
            type: 'submit',
            class: 'primary',
            disabled,
            'aria-label': 'Send',
            children: 'Send',
          }),
        ],
      }),
    ],
  });
}
// adapters/web/src/follow.ts
/**
 * Following one session's event stream (`GET /v1/sessions/{id}/events`, api/routes/events.ts) for as long as the
 * page shows the session, as the terminal client does (adapters/cli/events.ts): it resumes with
 * `Last-Event-ID: <revision>` after any drop, turns `turn.committed` events into a gap-free sequence (an event
 * that does not start where the last one ended makes it read the missing delta with `GET …/messages?after_revision=`
 * first, docs/message-flow.md §11; one from revision 0 while a later revision is held is a stream the server reset,
 * handed on as a reset), and reconnects with backoff when the API goes away (0.5 s doubling to 10 s, or at once on
 * {@link Follower.wake}). A stream silent for 40 s (pings come every 15 s) is treated as dead. A 401 stops it: the
 * token is not (or no longer) accepted.
 *
 * On every connect the server sends the calls waiting for approval and the running turn's whole snapshot
 * (api/event-hub.ts), so nothing here has to remember what was streamed before a drop.
 *
 * No DOM here (fetch and web streams only).
 */
/** Starts following; see the module comment. Never throws: failures are reported through `onState`. */
function follow(opts) {
  const backoffMs = opts.backoffMs ?? 500;
  const maxBackoffMs = opts.maxBackoffMs ?? 1e4;
  const staleMs = opts.staleMs ?? 4e4;
  const h = opts.handlers;
  let revision = opts.afterRevision;
  let closed = false;
  let current = null;
  let wakeUp = null;
  let connected = false;
  const sleep = (ms) =>
    new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });
  /** Reads the committed delta after `revision` (all pages) and hands it on. */
  const catchUp = async () => {
    for (;;) {
      const delta = await opts.client.getMessages(opts.sessionId, { afterRevision: revision });
      if (delta.revision > revision) {
        const fresh = delta.messages.filter((m) => m.revision > revision);
        revision = delta.revision;
        h.onCommitted(fresh, revision, false);
      }
      if (!delta.has_more) return;
    }
  };
  const onCommittedEvent = async (e) => {
    if (e.previous_revision === 0 && revision > 0) {
      revision = e.revision;
      h.onCommitted(e.messages, revision, true);
      return;
    }
    if (e.revision <= revision) return;
    if (e.previous_revision > revision) await catchUp();
    if (e.revision <= revision) return;
    const fresh = e.messages.filter((m) => m.revision > revision);
    revision = e.revision;
    h.onCommitted(fresh, revision, false);
  };
  const handleFrame = async (m) => {
    let data;
    try {
      data = JSON.parse(m.data);
    } catch {
      return;
    }
    if (typeof data !== 'object' || data === null) return;
    const d = data;
    if (m.event === 'turn.committed' && typeof d.revision === 'number' && Array.isArray(d.messages))
      await onCommittedEvent(data);
    else if (m.event === 'turn.updated' && typeof d.turn_id === 'string' && typeof d.text === 'string')
      h.onUpdated(data);
    else if (m.event === 'approval_requested' && typeof d.call_id === 'string') h.onApprovalRequested(data);
  };
  /** One connection, until it fails or ends. @throws ApiError */
  const stream = async () => {
    const abort = new AbortController();
    current = abort;
    const res = await opts.client.openEvents(opts.sessionId, revision, abort.signal);
    connected = true;
    h.onState({
      state: 'connected',
      revision,
    });
    const frames = [];
    const parser = createParser({ onEvent: (m) => frames.push(m) });
    let stale = null;
    const arm = () => {
      if (stale) clearTimeout(stale);
      stale = setTimeout(
        () => abort.abort(/* @__PURE__ */ new Error('the event stream went silent')),
        staleMs,
      );
    };
    arm();
    try {
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        arm();
        parser.feed(decoder.decode(value, { stream: true }));
        while (frames.length > 0) {
          if (closed) return;
          await handleFrame(frames.shift());
        }
      }
    } catch (err) {
      if (closed) return;
      throw err instanceof ApiError
        ? err
        : new ApiError('unreachable', `the event stream broke (${String(err)})`);
    } finally {
      if (stale) clearTimeout(stale);
      abort.abort();
    }
    if (!closed) throw new ApiError('unreachable', 'the server closed the event stream');
  };
  (async () => {
    let attempt = 0;
    h.onState({ state: 'connecting' });
    while (!closed) {
      connected = false;
      try {
        await stream();
      } catch (err) {
        if (closed) break;
        if (connected) attempt = 0;
        const error = err instanceof ApiError ? err : new ApiError('protocol', String(err));
        if (error.status === 401) {
          h.onState({
            state: 'unauthorized',
            error,
          });
          return;
        }
        if (error.status === 404) {
          h.onState({
            state: 'not_found',
            error,
          });
          return;
        }
        attempt += 1;
        const base = Math.min(maxBackoffMs, backoffMs * 2 ** (attempt - 1));
        const retryInMs = Math.round(base * (0.8 + Math.random() * 0.4));
        h.onState({
          state: 'lost',
          error,
          attempt,
          retryInMs,
        });
        await sleep(retryInMs);
      }
    }
  })();
  return {
    get revision() {
      return revision;
    },
    wake: () => wakeUp?.(),
    close() {
      if (closed) return;
      closed = true;
      current?.abort();
      wakeUp?.();
    },
  };
}
// adapters/web/src/live.tsx
/**
 * The running turn under the transcript: the text streamed so far in the current step (rebuilt whole from the
 * snapshot after a reload, marked with "…" when the API joined mid-step), the step's tools ⏳ → ✅/❌ with the time
 * they take and, while a command runs, its last output lines, the turn's notices, and "⋯ thinking" while nothing else is shown — the terminal client's live region
 * (adapters/cli/render.ts renderLive) as a page.
 */
/** "3.2s" since `startedAt` (to `finishedAt` when done); null when the start is unknown. */
function elapsed(t, nowMs) {
  if (t.startedAt === void 0) return null;
  const end = t.finishedAt ?? nowMs;
  return formatSeconds(Math.max(0, end - t.startedAt) / 1e3);
}
function ToolLine({ t, now }) {
  const took = elapsed(t, now);
  if (t.status === 'waiting')
    return /* @__PURE__ */ a('li', {
      class: 'tool waiting',
      children: [
        '✋ ',
        toolLabel(t.name),
        ' ',
        /* @__PURE__ */ a('span', {
          class: 'dim',
          children: '— waiting for approval',
        }),
      ],
    });
  const mark =
    t.status === 'running' ? TOOL_MARK.running : t.status === 'ok' ? TOOL_MARK.ok : TOOL_MARK.failed;
  return /* @__PURE__ */ a('li', {
    class: `tool ${t.status}`,
    children: [
      mark,
      ' ',
      toolLabel(t.name),
      t.summary ? /* @__PURE__ */ a('span', { children: [' — ', t.summary] }) : null,
      took !== null &&
        /* @__PURE__ */ a('span', {
          class: 'elapsed',
          children: took,
        }),
      t.status === 'running' && t.outputTail
        ? /* @__PURE__ */ a('pre', {
            class: 'tail',
            'aria-label': 'Last lines of its output',
            children: t.outputTail,
          })
        : null,
    ],
  });
}
function LiveTurnView({ live, now, agent = 'Kesoku' }) {
  const idle = live.text === '' && live.tools.length === 0;
  return /* @__PURE__ */ a('div', {
    class: 'live',
    'aria-busy': 'true',
    'data-turn': live.turnId,
    children: [
      live.text !== '' &&
        /* @__PURE__ */ a('div', {
          class: 'msg reply streaming',
          children: [
            /* @__PURE__ */ a('span', {
              class: 'who',
              children: agent,
            }),
            ' ',
            /* @__PURE__ */ a('span', {
              class: 'sep',
              children: '›',
            }),
            live.textOffset > 0 &&
              /* @__PURE__ */ a('span', {
                class: 'dim',
                title: 'the start of this text was streamed before this server saw it',
                children: [' ', '…'],
              }),
            /* @__PURE__ */ a('div', {
              class: 'live-text',
              children: /* @__PURE__ */ a(Markdown, {
                text: live.text,
                streaming: true,
              }),
            }),
          ],
        }),
      live.tools.length > 0 &&
        /* @__PURE__ */ a('ul', {
          class: 'tools',
          'aria-label': 'Tools of this step',
          children: live.tools.map((t) =>
            /* @__PURE__ */ a(
              ToolLine,
              {
                t,
                now,
              },
              t.call_id,
            ),
          ),
        }),
      live.notices.map((n, i) =>
        /* @__PURE__ */ a(
          'div',
          {
            class: 'msg notice',
            children: ['· ', n],
          },
          i,
        ),
      ),
      idle &&
        /* @__PURE__ */ a('div', {
          class: 'status dim',
          children: live.status === 'running_tools' ? '⋯ running tools' : '⋯ thinking',
        }),
    ],
  });
}
/** See the module comment. */
var Outbox = class {
  list = [];
  opts;
  running = false;
  timer = null;
  failures = 0;
  closed = false;
  constructor(opts) {
    this.opts = opts;
    try {
      const saved = JSON.parse(opts.load() ?? '[]');
      this.list = Array.isArray(saved)
        ? saved.map((i) =>
            i.state === 'sending'
              ? {
                  ...i,
                  state: 'waiting',
                }
              : i,
          )
        : [];
    } catch {
      this.list = [];
    }
    if (this.list.length > 0) this.kick(0);
  }
  items() {
    return this.list;
  }
  /** Queues a message and tries to send it at once. */
  add(item) {
    this.list = [
      ...this.list,
      {
        ...item,
        state: 'waiting',
        createdAt: Date.now(),
        attempts: 0,
      },
    ];
    this.changed();
    this.kick(0);
  }
  /** Tries a failed (or waiting) message again, same id. */
  retry(id) {
    this.patch(id, {
      state: 'waiting',
      detail: void 0,
    });
    this.failures = 0;
    this.kick(0);
  }
  /** Drops a message that is not accepted. */
  discard(id) {
    this.list = this.list.filter((i) => i.id !== id || i.state === 'accepted');
    this.changed();
  }
  /** Drops accepted messages of `sessionId` that `committed(id)` says are in its transcript. */
  settle(sessionId, committed) {
    const before = this.list.length;
    this.list = this.list.filter(
      (i) => !(i.sessionId === sessionId && i.state === 'accepted' && committed(i.id)),
    );
    if (this.list.length !== before) this.changed();
  }
  /** Sends what waits now (the browser is online again, a token was set). */
  wake() {
    this.failures = 0;
    this.kick(0);
  }
  close() {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
  kick(delayMs) {
    if (this.closed || this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.drain();
    }, delayMs);
  }
  async drain() {
    if (this.running || this.closed) return;
    this.running = true;
    let retryIn = null;
    try {
      for (;;) {
        const next = this.list.find((i) => i.state === 'waiting' || i.state === 'sending');
        if (!next) break;
        this.patch(next.id, {
          state: 'sending',
          attempts: next.attempts + 1,
        });
        try {
          const body = {
            id: next.id,
            content: next.content,
            sender: 'web',
            ...(next.attachments?.length ? { attachments: next.attachments } : {}),
          };
          await this.opts.client.postMessage(next.sessionId, body);
          this.failures = 0;
          this.patch(next.id, {
            state: 'accepted',
            detail: void 0,
            attachments: void 0,
          });
        } catch (err) {
          const e = err instanceof ApiError ? err : new ApiError('unreachable', String(err));
          if (e.status === 401) {
            this.patch(next.id, {
              state: 'waiting',
              detail: 'not sent yet: sign in again to send it',
            });
            this.opts.onUnauthorized();
            break;
          }
          if (e.kind === 'unreachable' || e.status === 429 || (e.status !== null && e.status >= 500)) {
            this.failures += 1;
            const base = this.opts.backoffMs ?? 1e3;
            retryIn = Math.min(this.opts.maxBackoffMs ?? 15e3, base * 2 ** (this.failures - 1));
            const why = e.kind === 'unreachable' ? 'the Kesoku API is not reachable' : e.detail;
            this.patch(next.id, {
              state: 'waiting',
              detail: `not sent yet (${why}); it is sent when the API answers`,
            });
            break;
          }
          this.patch(next.id, {
            state: 'failed',
            detail: `not sent: ${e.detail}`,
          });
        }
      }
    } finally {
      this.running = false;
    }
    if (retryIn !== null) this.kick(retryIn);
  }
  patch(id, changes) {
    this.list = this.list.map((i) =>
      i.id === id
        ? {
            ...i,
            ...changes,
          }
        : i,
    );
    this.changed();
  }
  changed() {
    const keep = this.list.filter((i) => i.state !== 'accepted' || Date.now() - i.createdAt < 6e5);
    this.list = keep;
    this.opts.save(keep.length > 0 ? JSON.stringify(keep) : null);
    this.opts.onChange(keep);
  }
};
// domain/plan-view.ts
/** The mark before a step's title. */
var PLAN_MARK = {
  done: '✅',
  in_progress: '▶️',
  pending: '◻️',
};
/** "2/5 done" for `steps`. */
function planProgress(steps) {
  return `${steps.filter((s) => s.status === 'done').length}/${steps.length} done`;
}
// adapters/web/src/plan.tsx
/**
 * The session's active plan (the model's `update_plan`, docs/memory.md "Active plan") as a panel above the
 * transcript: "📋 Plan 1/3 done" and one line per step with its mark (domain/plan-view.ts), the step in progress
 * highlighted. Live: a running turn's `turn.updated` snapshots carry the plan as the turn sets it; between turns
 * (and after a reload) it comes from `GET /v1/sessions/{id}`. Of the two, the higher plan revision wins, so a
 * session read that trails the stream never brings an older plan back. Hidden when the session has no plan.
 */
/** The newer of the session's stored plan and the live one (null: none, or cleared). */
function activePlan(stored, live) {
  const s = stored ?? null;
  const newest = live && (!s || live.revision > s.revision) ? live : s;
  return newest && newest.steps.length > 0 ? newest : null;
}
/**
 * The plan last seen live in `sessionId`'s stream, and the `onUpdated` hook that feeds it (call it with every
 * `turn.updated` snapshot). It starts empty for each session.
 */
function useLivePlan(sessionId) {
  const [live, setLive] = d(null);
  A(() => setLive(null), [sessionId]);
  return [
    live,
    b((u) => {
      const plan = u.plan;
      if (plan) setLive((before) => (before && before.revision >= plan.revision ? before : plan));
    }, []),
  ];
}
/** The plan panel; renders nothing without a plan. */
function PlanPanel({ plan }) {
  if (!plan) return null;
  return /* @__PURE__ */ a('section', {
    class: 'plan',
    'aria-label': 'Plan',
    children: [
      /* @__PURE__ */ a('h2', {
        children: [
          '📋 Plan ',
          /* @__PURE__ */ a('span', {
            class: 'progress',
            children: planProgress(plan.steps),
          }),
        ],
      }),
      /* @__PURE__ */ a('ol', {
        children: plan.steps.map((s, i) =>
          /* @__PURE__ */ a(
            'li',
            {
              class: `step ${s.status}`,
              'data-status': s.status,
              children: [
                /* @__PURE__ */ a('span', {
                  class: 'mark',
                  'aria-hidden': 'true',
                  children: PLAN_MARK[s.status],
                }),
                ' ',
                /* @__PURE__ */ a('span', {
                  class: 'title',
                  children: s.title,
                }),
              ],
            },
            i,
          ),
        ),
      }),
    ],
  });
}
// adapters/web/src/schedules.tsx
/**
 * The open session's scheduled prompts (docs/schedules.md): each with its timing and zone, its next run at that
 * zone's wall time (and how far off it is), its last runs (outcome, whether the reply was delivered), and Pause /
 * Resume, Run now and Delete; below them a small form to create one (prompt, one of cron / every / at / in, an
 * optional IANA zone), and the session's own zone, the default of new schedules (`PATCH /v1/sessions/{id}
 * {timezone}`). A refusal shows the API's problem detail, which names the field.
 *
 * The list is read when the session opens, after each commit of the session (a run's outcome moves with its
 * turn), after every change made here, and every few seconds while the panel is open (next runs move on).
 */
/** How often an open panel reads the list again, in ms. */
var POLL_MS = 4e3;
/**
 * Reads the schedules of `sessionId` on open, when `revision` moves, and every {@link POLL_MS} while `open`.
 * A 401 calls `onUnauthorized`.
 */
function useSchedules(client, sessionId, revision, open, onUnauthorized) {
  const [schedules, setSchedules] = d([]);
  const [loaded, setLoaded] = d(false);
  const [error, setError] = d(null);
  const generation = T(0);
  const reload = b(() => {
    const mine = ++generation.current;
    (async () => {
      try {
        const list = await client.listSchedules(sessionId);
        if (mine !== generation.current) return;
        setSchedules(list);
        setError(null);
        setLoaded(true);
      } catch (err) {
        if (mine !== generation.current) return;
        if (err instanceof ApiError && err.status === 401) return onUnauthorized();
        setError(err instanceof ApiError ? err.detail : String(err));
      }
    })();
  }, [client, sessionId, onUnauthorized]);
  A(() => {
    setSchedules([]);
    setLoaded(false);
    setError(null);
  }, [sessionId]);
  A(() => {
    const t = setTimeout(reload, revision === 0 ? 0 : 300);
    return () => clearTimeout(t);
  }, [reload, revision]);
  A(() => {
    if (!open) return;
    const t = setInterval(reload, POLL_MS);
    return () => clearInterval(t);
  }, [reload, open]);
  A(
    () => () => {
      generation.current++;
    },
    [],
  );
  return {
    schedules,
    loaded,
    error,
    reload,
  };
}
/** "in 3s", "in 2m 5s", "in 3h 10m", "in 4d 2h"; "due" when it is now or past. */
function untilText(atMs, nowMs) {
  const s = Math.round((atMs - nowMs) / 1e3);
  if (s <= 0) return 'due';
  const parts = [
    [Math.floor(s / 86400), 'd'],
    [Math.floor((s % 86400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
    [s % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  return `in ${parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, u]) => `${n}${u}`)
    .join(' ')}`;
}
/** An ISO 8601 time with its offset as people read it: `2026-12-01 09:30:00 +09:00` (the zone's wall time). */
function wallText(iso) {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(iso);
  if (!m) return iso;
  return `${m[1]} ${m[2]} ${m[3] === 'Z' ? '+00:00' : m[3]}`;
}
function timingText(s) {
  switch (s.kind) {
    case 'cron':
      return `cron ${s.spec}`;
    case 'every':
      return `every ${s.spec}`;
    case 'in':
      return `once, in ${s.spec}`;
    case 'at':
      return `once, at ${s.spec}`;
  }
}
var OUTCOME_MARK = {
  queued: '⏳',
  running: '●',
  processed: '✅',
  interrupted: '⏹️',
  error: '❌',
  missed: '⤼',
  rejected: '⛔',
};
/** The problem detail of a failed call, for a person. */
var detailOf = (err) => (err instanceof ApiError ? err.detail : String(err));
/** The panel beside the transcript: the list, then the create form. */
function SchedulesPanel(props) {
  const { state } = props;
  return /* @__PURE__ */ a('aside', {
    class: 'schedules',
    id: 'schedules-panel',
    'aria-label': 'Schedules',
    children: [
      /* @__PURE__ */ a('div', {
        class: 'schedules-head',
        children: [
          /* @__PURE__ */ a('h2', { children: '⏰ Schedules' }),
          /* @__PURE__ */ a('button', {
            type: 'button',
            class: 'link',
            onClick: props.onClose,
            'aria-label': 'Close schedules',
            children: 'Close',
          }),
        ],
      }),
      state.error &&
        /* @__PURE__ */ a('p', {
          class: 'problem',
          role: 'alert',
          children: state.error,
        }),
      state.loaded &&
        state.schedules.length === 0 &&
        /* @__PURE__ */ a('p', {
          class: 'dim',
          children: 'No scheduled prompts in this session.',
        }),
      /* @__PURE__ */ a('ul', {
        class: 'schedule-list',
        children: state.schedules.map((s) =>
          /* @__PURE__ */ a(
            ScheduleItem,
            {
              ...props,
              schedule: s,
            },
            s.id,
          ),
        ),
      }),
      /* @__PURE__ */ a(CreateSchedule, { ...props }),
      /* @__PURE__ */ a(SessionZone, { ...props }),
    ],
  });
}
function ScheduleItem(props) {
  const { client, sessionId, schedule: s, state, now } = props;
  const [busy, setBusy] = d(false);
  const [confirming, setConfirming] = d(false);
  const [result, setResult] = d(null);
  const act = async (what, done) => {
    setBusy(true);
    setResult(null);
    try {
      await what();
      if (done)
        setResult({
          text: done,
          error: false,
        });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return props.onUnauthorized();
      setResult({
        text: detailOf(err),
        error: true,
      });
    } finally {
      setBusy(false);
      setConfirming(false);
      state.reload();
    }
  };
  const next = s.next_run_at;
  return /* @__PURE__ */ a('li', {
    class: `schedule${s.paused ? ' paused' : ''}`,
    'data-schedule': s.id,
    'aria-label': `Schedule ${s.id}`,
    children: [
      /* @__PURE__ */ a('p', {
        class: 'prompt',
        children: s.prompt,
      }),
      /* @__PURE__ */ a('p', {
        class: 'timing dim',
        children: [
          timingText(s),
          ' · ',
          /* @__PURE__ */ a('span', {
            class: 'zone',
            children: s.timezone,
          }),
        ],
      }),
      /* @__PURE__ */ a('p', {
        class: 'next',
        children: s.paused
          ? /* @__PURE__ */ a('span', {
              class: 'badge waiting',
              children: 'paused',
            })
          : next
            ? /* @__PURE__ */ a($, {
                children: [
                  'next ',
                  /* @__PURE__ */ a('time', {
                    dateTime: next,
                    children: wallText(next),
                  }),
                  ' ',
                  /* @__PURE__ */ a('span', {
                    class: 'dim',
                    children: ['(', untilText(Date.parse(next), now), ')'],
                  }),
                ],
              })
            : /* @__PURE__ */ a('span', {
                class: 'dim',
                children: 'no next run',
              }),
      }),
      s.runs.length > 0 &&
        /* @__PURE__ */ a('ol', {
          class: 'runs',
          'aria-label': 'Last runs',
          children: s.runs.map((r) =>
            /* @__PURE__ */ a(
              'li',
              {
                class: `run ${r.outcome}`,
                'data-outcome': r.outcome,
                children: [
                  /* @__PURE__ */ a('span', {
                    'aria-hidden': 'true',
                    children: OUTCOME_MARK[r.outcome] ?? '·',
                  }),
                  ' ',
                  /* @__PURE__ */ a('time', {
                    dateTime: r.fired_at ?? r.scheduled_at,
                    children: wallText(r.fired_at ?? r.scheduled_at),
                  }),
                  ' ·',
                  ' ',
                  r.outcome,
                  r.delivered ? ' · delivered' : '',
                  r.detail &&
                    /* @__PURE__ */ a('span', {
                      class: 'dim',
                      children: [' · ', r.detail],
                    }),
                ],
              },
              r.turn_id,
            ),
          ),
        }),
      /* @__PURE__ */ a('div', {
        class: 'buttons',
        children: [
          /* @__PURE__ */ a('button', {
            type: 'button',
            disabled: busy,
            onClick: () => void act(() => client.pauseSchedule(sessionId, s.id, !s.paused), null),
            children: s.paused ? 'Resume' : 'Pause',
          }),
          /* @__PURE__ */ a('button', {
            type: 'button',
            disabled: busy,
            onClick: () => void act(() => client.triggerSchedule(sessionId, s.id), 'Triggered: it runs now.'),
            children: 'Run now',
          }),
          confirming
            ? /* @__PURE__ */ a($, {
                children: [
                  /* @__PURE__ */ a('button', {
                    type: 'button',
                    class: 'danger',
                    disabled: busy,
                    onClick: () => void act(() => client.deleteSchedule(sessionId, s.id), null),
                    children: 'Delete for good',
                  }),
                  /* @__PURE__ */ a('button', {
                    type: 'button',
                    class: 'link',
                    onClick: () => setConfirming(false),
                    children: 'Keep',
                  }),
                ],
              })
            : /* @__PURE__ */ a('button', {
                type: 'button',
                disabled: busy,
                onClick: () => setConfirming(true),
                children: 'Delete',
              }),
        ],
      }),
      result &&
        /* @__PURE__ */ a('p', {
          class: result.error ? 'problem' : 'dim',
          role: result.error ? 'alert' : 'status',
          children: result.text,
        }),
    ],
  });
}
var KIND_HINT = {
  in: 'minutes, or 90s, 5m, 2h',
  every: '10s, 5m, 1h30m, 1d',
  cron: '0 9 * * 1-5',
  at: '2026-12-24T09:00',
};
/** The zone this browser is in, offered as an example. */
var browserZone = (() => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return 'UTC';
  }
})();
function CreateSchedule(props) {
  const { client, sessionId, state } = props;
  const [prompt, setPrompt] = d('');
  const [kind, setKind] = d('in');
  const [when, setWhen] = d('');
  const [zone, setZone] = d('');
  const [busy, setBusy] = d(false);
  const [result, setResult] = d(null);
  const submit = async () => {
    const value = when.trim();
    const body =
      kind === 'every' && /^\d+$/.test(value)
        ? {
            prompt,
            every: Number(value),
          }
        : {
            prompt,
            [kind]: value,
          };
    if (zone.trim() !== '') body.timezone = zone.trim();
    setBusy(true);
    setResult(null);
    try {
      const made = await client.createSchedule(sessionId, body);
      setPrompt('');
      setWhen('');
      setResult({
        text: `Created ${made.id}${made.next_run_at ? `: next run ${wallText(made.next_run_at)} (${made.timezone})` : ''}.`,
        error: false,
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return props.onUnauthorized();
      setResult({
        text: detailOf(err),
        error: true,
      });
    } finally {
      setBusy(false);
      state.reload();
    }
  };
  return /* @__PURE__ */ a('form', {
    class: 'new-schedule',
    'aria-label': 'New schedule',
    onSubmit: (e) => {
      e.preventDefault();
      submit();
    },
    children: [
      /* @__PURE__ */ a('h3', { children: 'New schedule' }),
      /* @__PURE__ */ a('label', {
        children: [
          'Prompt',
          /* @__PURE__ */ a('textarea', {
            rows: 2,
            value: prompt,
            required: true,
            onInput: (e) => setPrompt(e.currentTarget.value),
            'aria-label': 'Schedule prompt',
          }),
        ],
      }),
      /* @__PURE__ */ a('div', {
        class: 'when',
        children: [
          /* @__PURE__ */ a('label', {
            children: [
              'When',
              /* @__PURE__ */ a('select', {
                'aria-label': 'Schedule kind',
                value: kind,
                onChange: (e) => setKind(e.currentTarget.value),
                children: [
                  /* @__PURE__ */ a('option', {
                    value: 'in',
                    children: 'in',
                  }),
                  /* @__PURE__ */ a('option', {
                    value: 'every',
                    children: 'every',
                  }),
                  /* @__PURE__ */ a('option', {
                    value: 'cron',
                    children: 'cron',
                  }),
                  /* @__PURE__ */ a('option', {
                    value: 'at',
                    children: 'at',
                  }),
                ],
              }),
            ],
          }),
          /* @__PURE__ */ a('input', {
            'aria-label': 'Schedule timing',
            value: when,
            required: true,
            placeholder: KIND_HINT[kind],
            onInput: (e) => setWhen(e.currentTarget.value),
          }),
        ],
      }),
      /* @__PURE__ */ a('label', {
        children: [
          'Time zone',
          /* @__PURE__ */ a('input', {
            'aria-label': 'Schedule time zone',
            value: zone,
            placeholder: props.sessionZone
              ? `${props.sessionZone} (the session's)`
              : `default, e.g. ${browserZone}`,
            onInput: (e) => setZone(e.currentTarget.value),
          }),
        ],
      }),
      /* @__PURE__ */ a('button', {
        type: 'submit',
        class: 'primary',
        disabled: busy,
        children: 'Create',
      }),
      result &&
        /* @__PURE__ */ a('p', {
          class: result.error ? 'problem' : 'dim',
          role: result.error ? 'alert' : 'status',
          children: result.text,
        }),
    ],
  });
}
function SessionZone(props) {
  const [draft, setDraft] = d(props.sessionZone ?? '');
  const [busy, setBusy] = d(false);
  const [problem, setProblem] = d(null);
  A(() => setDraft(props.sessionZone ?? ''), [props.sessionZone]);
  return /* @__PURE__ */ a('form', {
    class: 'session-zone',
    'aria-label': 'Session zone setting',
    onSubmit: async (e) => {
      e.preventDefault();
      setBusy(true);
      setProblem(await props.onSessionZone(draft.trim() === '' ? null : draft.trim()));
      setBusy(false);
    },
    children: [
      /* @__PURE__ */ a('label', {
        children: [
          'Session time zone (for new schedules without one)',
          /* @__PURE__ */ a('span', {
            class: 'when',
            children: [
              /* @__PURE__ */ a('input', {
                'aria-label': 'Session time zone',
                value: draft,
                placeholder: `none: the server's; e.g. ${browserZone}`,
                onInput: (e) => setDraft(e.currentTarget.value),
              }),
              /* @__PURE__ */ a('button', {
                type: 'submit',
                disabled: busy,
                children: 'Set',
              }),
            ],
          }),
        ],
      }),
      problem &&
        /* @__PURE__ */ a('p', {
          class: 'problem',
          role: 'alert',
          children: problem,
        }),
    ],
  });
}
// domain/history.ts
/** docs/message-model.md §5.1: Thought (0) → Tool Call (1) → Tool Result (2) → Final Text (3). */
var PHASES = {
  thought: 0,
  tool_call: 1,
  tool_result: 2,
  text: 3,
};
/**
 * True for the message that opens a turn: no step, and either a user message or a system input (a background
 * alert in the input lifecycle).
 */
function isTurnTrigger(message) {
  return (
    message.step === null &&
    (message.role === 'user' || (message.role === 'system' && isInputStatus(message.status)))
  );
}
function compareTrigger(a, b) {
  return (isTurnTrigger(a) ? 0 : 1) - (isTurnTrigger(b) ? 0 : 1);
}
/** A message without a step (a crash notice after a failure outside any step, a notification) comes last. */
function compareStep(a, b) {
  const stepA = a.step ?? Number.POSITIVE_INFINITY;
  const stepB = b.step ?? Number.POSITIVE_INFINITY;
  return stepA === stepB ? 0 : stepA < stepB ? -1 : 1;
}
function compareSeq(a, b) {
  if (a.seq !== b.seq) return a.seq - b.seq;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
/** Seed 000 §5.1: phase first across the whole turn, then step — every thought, call, result, then the texts. */
function compareWithinTurn(a, b) {
  return compareTrigger(a, b) || PHASES[a.type] - PHASES[b.type] || compareStep(a, b) || compareSeq(a, b);
}
/**
 * Groups messages into turns, in history order (docs/message-model.md §5.1). A turn is all messages sharing a `turn_id` (a
 * trigger's `turn_id` is its own id); a message with `turn_id` null is a group of its own. Groups are ordered by
 * their smallest `seq`; inside a group, messages are in phased order (see {@link sortHistory}). Returns new
 * arrays; the messages themselves are not copied.
 */
function groupTurns(messages) {
  const groups = /* @__PURE__ */ new Map();
  for (const message of messages) {
    const key = message.turn_id === null ? `message:${message.seq}:${message.id}` : `turn:${message.turn_id}`;
    const group = groups.get(key);
    if (group === void 0) groups.set(key, [message]);
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
function sortHistory(messages) {
  return groupTurns(messages).flat();
}
// domain/tool-flow.ts
/** Content of the synthetic result written for a tool_call that never got one (docs/message-model.md §4.4). */
var INTERRUPTED_TOOL_RESULT = '[Tool execution interrupted: no result was recorded]';
/**
 * The id the model knows a tool call by: `metadata.tool_call_id`, or the message id when the call has none
 * (the docs/message-model.md §6.1 trace records no provider id).
 */
function toolCallIdOf(call) {
  const id = call.metadata?.tool_call_id;
  return typeof id === 'string' && id !== '' ? id : call.id;
}
/** The tool name of a call or result: `metadata.tool_name`, else the sender (a result's sender is the tool). */
function toolNameOf(message) {
  const name = message.metadata?.tool_name;
  return typeof name === 'string' ? name : message.sender;
}
/**
 * Pairs every tool_result with its tool_call: a result belongs to the call whose message id is its `parent_id`
 * (what Kesoku stores), or else to the call of the same turn whose {@link toolCallIdOf} equals the result's
 * `metadata.tool_call_id` — never to a call of another turn, since providers reuse ids such as `call_0` from
 * turn to turn. A call keeps only its first result (in the given order); later duplicates and results without a
 * call are unpaired.
 */
function indexToolFlows(messages) {
  const inTurn = (message, toolCallId) => `${message.turn_id ?? ''}\u0000${toolCallId}`;
  const callsByToolCallId = /* @__PURE__ */ new Map();
  const callsById = /* @__PURE__ */ new Map();
  for (const message of messages) {
    if (message.type !== 'tool_call') continue;
    callsById.set(message.id, message);
    const key = inTurn(message, toolCallIdOf(message));
    if (!callsByToolCallId.has(key)) callsByToolCallId.set(key, message);
  }
  const resultOf = /* @__PURE__ */ new Map();
  const callOf = /* @__PURE__ */ new Map();
  for (const message of messages) {
    if (message.type !== 'tool_result') continue;
    const toolCallId = message.metadata?.tool_call_id;
    const call =
      (message.parent_id === null ? void 0 : callsById.get(message.parent_id)) ??
      (typeof toolCallId === 'string' ? callsByToolCallId.get(inTurn(message, toolCallId)) : void 0);
    if (call === void 0 || resultOf.has(call.id)) continue;
    resultOf.set(call.id, message);
    callOf.set(message.id, call);
  }
  return {
    resultOf,
    callOf,
  };
}
/**
 * The in-memory result for a tool_call without one (docs/message-model.md §4.4): tool/tool_result, sender the tool name,
 * `parent_id` the call, same turn, step, seq, revision and timestamps as the call, id `<call id>:interrupted`,
 * content {@link INTERRUPTED_TOOL_RESULT}, metadata `{tool_name, tool_call_id, tool_result: 'interrupted',
 * synthetic: true}`. Never stored; rebuilt each time history is prepared.
 */
function syntheticInterruptedResult(call) {
  const toolName = toolNameOf(call);
  return {
    ...call,
    id: `${call.id}:interrupted`,
    parent_id: call.id,
    sender: toolName,
    role: 'tool',
    type: 'tool_result',
    status: 'responded',
    content: INTERRUPTED_TOOL_RESULT,
    metadata: {
      tool_name: toolName,
      tool_call_id: toolCallIdOf(call),
      tool_result: 'interrupted',
      synthetic: true,
    },
    received_at: null,
  };
}
// adapters/web/src/transcript.ts
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
var ENDED_MEMORY = 64;
/** See the module comment. Mutable; `version` changes on every change (for re-rendering). */
var Transcript = class {
  sessionId;
  byId = /* @__PURE__ */ new Map();
  ordered = [];
  live = null;
  requests = /* @__PURE__ */ new Map();
  ended = [];
  /** The revision held: every message committed up to it is here. */
  revision = 0;
  /** True when older messages than the oldest held exist (the history was read from its newest end). */
  hasOlder = false;
  version = 0;
  constructor(sessionId) {
    this.sessionId = sessionId;
  }
  /** Replaces everything with a history read (the first load, or a reset stream). */
  load(messages, revision, hasOlder = false) {
    this.byId.clear();
    this.requests.clear();
    this.live = null;
    this.hasOlder = hasOlder;
    this.revision = revision;
    this.merge(messages);
  }
  /** Adds an older page of history (`before_seq`). */
  prepend(messages, hasOlder) {
    this.hasOlder = hasOlder;
    const fresh = messages.filter((m) => !this.byId.has(m.id));
    this.merge(fresh);
  }
  /** A committed delta: new and changed messages with revision up to `revision`. */
  commit(messages, revision) {
    if (revision > this.revision) this.revision = revision;
    this.merge(messages);
  }
  /** A `turn.updated` snapshot; a snapshot of an ended turn or an earlier step is ignored. */
  update(u) {
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
  requestApproval(a) {
    if (a.session_id !== this.sessionId || this.ended.includes(a.turn_id)) return;
    this.requests.set(a.call_id, a);
    this.version++;
  }
  /** The oldest `seq` held (for reading older history), or null. */
  get oldestSeq() {
    let min = null;
    for (const m of this.byId.values()) if (min === null || m.seq < min) min = m.seq;
    return min;
  }
  /** True when message `id` is committed here. */
  has(id) {
    return this.byId.has(id);
  }
  /** What to draw; see the module comment. */
  view(nowMs = Date.now()) {
    const flows = indexToolFlows(this.ordered);
    const synthetic = this.ordered
      .filter((m) => m.type === 'tool_call' && !flows.resultOf.has(m.id) && this.turnEnded(m.turn_id))
      .map(syntheticInterruptedResult);
    const all = synthetic.length > 0 ? sortHistory([...this.ordered, ...synthetic]) : this.ordered;
    const callOf = new Map(flows.callOf);
    for (const r of synthetic) callOf.set(r.id, this.byId.get(r.parent_id ?? ''));
    const messages = all.filter((m) => presentationFor('cli', m) !== 'hidden');
    const live = this.liveView(flows.resultOf);
    return {
      messages,
      callOf: (result) => callOf.get(result.id),
      live,
      pending: this.pendingDecisions(nowMs),
      busy: live !== null || this.ordered.some((m) => isTurnTrigger(m) && m.status === 'processing'),
    };
  }
  /** True when the turn's trigger is held with a final status (a message outside a turn counts as ended). */
  turnEnded(turnId) {
    if (turnId === null) return true;
    const trigger = this.byId.get(turnId);
    return trigger !== void 0 && isTerminalStatus(trigger.status);
  }
  merge(messages) {
    for (const m of messages) {
      const held = this.byId.get(m.id);
      if (held && held.revision > m.revision) continue;
      this.byId.set(m.id, m);
      this.noteEnd(m);
    }
    this.ordered = sortHistory([...this.byId.values()]);
    this.version++;
  }
  /** Whether `m` ends its turn (its trigger's final status, its final reply or crash notice). */
  noteEnd(m) {
    if (m.turn_id === null) return;
    if (m.id === m.turn_id) {
      if (isTerminalStatus(m.status)) this.end(m.id);
      return;
    }
    const kind = messageKind(m);
    if (kind === 'final_reply' || kind === 'crash_notice') this.end(m.turn_id);
  }
  end(turnId) {
    if (!this.ended.includes(turnId)) this.ended.push(turnId);
    if (this.ended.length > ENDED_MEMORY) this.ended.shift();
    if (this.live?.turn_id === turnId) this.live = null;
    for (const [id, r] of this.requests) if (r.turn_id === turnId) this.requests.delete(id);
  }
  /** The running turn's uncommitted part: from the snapshot, and from committed calls still without results. */
  liveView(resultOf) {
    const snap = this.live;
    const running = snap?.turn_id ?? this.runningTrigger()?.id ?? null;
    if (running === null) return null;
    const turn = this.ordered.filter((m) => m.turn_id === running);
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
    const tools = [];
    const seen = /* @__PURE__ */ new Set();
    for (const call of turn.filter((m) => m.type === 'tool_call')) {
      const callId = toolCallIdOf(call);
      if (results.has(call.id)) continue;
      const approval = call.metadata?.approval;
      if (approval && approval.state !== 'pending' && approval.state !== 'approved') continue;
      const progress = snap?.tools.find((t) => t.call_id === call.id || t.call_id === callId);
      seen.add(call.id);
      if (progress) seen.add(progress.call_id);
      const startedAt = approval?.state === 'pending' ? void 0 : Date.parse(approval?.at ?? call.created_at);
      const fromCall = {
        call_id: call.id,
        name: toolNameOf(call),
        status: approval?.state === 'pending' ? 'waiting' : 'running',
        ...(startedAt !== void 0 && Number.isFinite(startedAt) ? { startedAt } : {}),
      };
      tools.push(
        progress
          ? {
              ...fromCall,
              ...liveTool(progress),
              call_id: call.id,
            }
          : fromCall,
      );
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
  runningTrigger() {
    for (let i = this.ordered.length - 1; i >= 0; i--) {
      const m = this.ordered[i];
      if (isTurnTrigger(m) && m.status === 'processing' && !this.ended.includes(m.id)) return m;
    }
    return null;
  }
  /**
   * Calls waiting for a decision: announced by the stream or committed as `pending`, of a turn not ended, and not
   * decided in what is committed.
   */
  pendingDecisions(nowMs) {
    const out = /* @__PURE__ */ new Map();
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
      const approval = m.metadata?.approval;
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
    return [...out.values()].filter((p) => p.expiresAt === null || p.expiresAt > nowMs - 5e3);
  }
};
function liveTool(t) {
  const started = t.started_at ? Date.parse(t.started_at) : NaN;
  const finished = t.finished_at ? Date.parse(t.finished_at) : NaN;
  return {
    call_id: t.call_id,
    name: t.name,
    status: t.status,
    ...(t.summary !== void 0 ? { summary: t.summary } : {}),
    ...(Number.isFinite(started) ? { startedAt: started } : {}),
    ...(Number.isFinite(finished) ? { finishedAt: finished } : {}),
    ...(t.status === 'running' && t.output_tail ? { outputTail: t.output_tail } : {}),
  };
}
// adapters/web/src/chat.tsx
/**
 * One session: its header (title to rename, channel, status, mode and approval policy), the transcript
 * (adapters/web/src/transcript.ts: the newest messages read once, then only committed deltas from the event
 * stream, adapters/web/src/follow.ts), the running turn, the approval cards, the messages not sent yet, and the
 * composer. Esc anywhere on the page stops the running turn. The header's ⏰ button opens the session's schedules
 * (adapters/web/src/schedules.tsx) beside the transcript (`.chat-body` is a grid: the conversation, then the panel).
 */
/** How many of the newest messages a session opens with; older ones come with "Show older messages". */
var PAGE$1 = 200;
/** Re-renders every `everyMs` while `active` (running tools' elapsed times, approval countdowns). */
function useNow(active, everyMs = 1e3) {
  const [now, setNow] = d(Date.now());
  A(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [active, everyMs]);
  return active ? now : Date.now();
}
var sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function ChatView(props) {
  const { client, sessionId, config } = props;
  const latest = T(props);
  latest.current = props;
  const onUnauthorized = b(() => latest.current.onUnauthorized(), []);
  const transcript = T(new Transcript(sessionId));
  const follower = T(null);
  const [, setVersion] = d(0);
  const [info, setInfo] = d(null);
  const [stream, setStream] = d({ state: 'connecting' });
  const [loading, setLoading] = d(true);
  const [notice, setNotice] = d(null);
  const [dropped, setDropped] = d(null);
  const [dragging, setDragging] = d(false);
  const scroller = T(null);
  const stick = T(true);
  const [schedulesOpen, setSchedulesOpen] = d(false);
  const [livePlan, seePlan] = useLivePlan(sessionId);
  A(() => {
    const t = new Transcript(sessionId);
    transcript.current = t;
    setVersion((v) => v + 1);
    setInfo(null);
    setLoading(true);
    setNotice(null);
    stick.current = true;
    let cancelled = false;
    let infoTimer = null;
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
    (async () => {
      for (let attempt = 0; !cancelled; attempt++)
        try {
          const [session, history] = await Promise.all([
            client.getSession(sessionId),
            client.getMessages(sessionId, { limit: PAGE$1 }).catch((err) => {
              if (err instanceof ApiError && err.status === 404) return null;
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
            retryInMs: 1e3,
          });
          await sleep(Math.min(1e4, 500 * 2 ** attempt));
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
  A(() => {
    latest.current.onStatus(sessionId, {
      busy,
      waiting: view.pending.length,
    });
  }, [sessionId, busy, view.pending.length]);
  const stop = b(async () => {
    try {
      const r = await client.stop(sessionId);
      setNotice(r.stopped ? null : 'Nothing was running.');
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return onUnauthorized();
      setNotice(`Could not stop: ${err instanceof ApiError ? err.detail : String(err)}`);
    }
  }, [client, sessionId, onUnauthorized]);
  A(() => {
    const onKey = (e) => {
      if (e.key !== 'Escape' || e.defaultPrevented || !busy) return;
      e.preventDefault();
      stop();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [busy, stop]);
  A(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  });
  const patch = async (body) => {
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
    const page = await client.getMessages(sessionId, {
      beforeSeq: before,
      limit: PAGE$1,
    });
    t.prepend(page.messages, page.has_more === true);
    setVersion((v) => v + 1);
  };
  const unsent = props.outbox.filter((o) => o.sessionId === sessionId && !t.has(o.id));
  return /* @__PURE__ */ a('section', {
    class: `chat${dragging ? ' dragging' : ''}`,
    'aria-label': 'Conversation',
    onDragOver: (e) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      e.preventDefault();
      setDragging(true);
    },
    onDragLeave: (e) => {
      if (e.currentTarget === e.target) setDragging(false);
    },
    onDrop: (e) => {
      const files = [...(e.dataTransfer?.files ?? [])];
      setDragging(false);
      if (files.length === 0) return;
      e.preventDefault();
      setDropped({
        files,
        at: Date.now(),
      });
    },
    children: [
      /* @__PURE__ */ a(ChatHeader, {
        sessionId,
        info,
        busy,
        onRename: (title) => void patch({ title }),
        onMode: (mode) => void patch({ mode }),
        onApproval: (approval) => void patch({ approval }),
        schedules: schedules.schedules.length,
        schedulesOpen,
        onSchedules: () => setSchedulesOpen(!schedulesOpen),
      }),
      /* @__PURE__ */ a(ConnectionBanner, { stream }),
      /* @__PURE__ */ a(PlanPanel, { plan: activePlan(info?.plan, livePlan) }),
      /* @__PURE__ */ a('div', {
        class: `chat-body${schedulesOpen ? ' with-panel' : ''}`,
        children: [
          /* @__PURE__ */ a('div', {
            class: 'transcript',
            ref: scroller,
            role: 'log',
            'aria-label': 'Messages',
            'aria-live': 'polite',
            'aria-relevant': 'additions',
            onScroll: (e) => {
              const el = e.currentTarget;
              stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
            },
            children: [
              t.hasOlder &&
                /* @__PURE__ */ a('button', {
                  type: 'button',
                  class: 'link older',
                  onClick: () => void loadOlder(),
                  children: 'Show older messages',
                }),
              loading &&
                /* @__PURE__ */ a('p', {
                  class: 'dim',
                  children: 'Loading…',
                }),
              !loading &&
                view.messages.length === 0 &&
                unsent.length === 0 &&
                !view.live &&
                /* @__PURE__ */ a('p', {
                  class: 'empty dim',
                  children: 'No messages yet. Say something to start the session.',
                }),
              view.messages.map((m) =>
                /* @__PURE__ */ a(
                  MessageView,
                  {
                    message: m,
                    callOf: view.callOf,
                  },
                  m.id,
                ),
              ),
              unsent.map((o) =>
                /* @__PURE__ */ a(
                  Unsent,
                  {
                    item: o,
                    onRetry: props.onRetry,
                    onDiscard: props.onDiscard,
                  },
                  o.id,
                ),
              ),
              view.live &&
                /* @__PURE__ */ a(LiveTurnView, {
                  live: view.live,
                  now,
                }),
              view.pending.map((p) =>
                /* @__PURE__ */ a(
                  ApprovalCard,
                  {
                    client,
                    sessionId,
                    pending: p,
                    now,
                    onUnauthorized,
                  },
                  p.call_id,
                ),
              ),
              notice &&
                /* @__PURE__ */ a('p', {
                  class: 'msg notice',
                  role: 'status',
                  children: notice,
                }),
            ],
          }),
          schedulesOpen &&
            /* @__PURE__ */ a(SchedulesPanel, {
              client,
              sessionId,
              state: schedules,
              sessionZone: info?.timezone ?? null,
              now,
              onUnauthorized,
              onClose: () => setSchedulesOpen(false),
              onSessionZone: async (timezone) => {
                try {
                  setInfo(await client.patchSession(sessionId, { timezone }));
                  return null;
                } catch (err) {
                  if (err instanceof ApiError && err.status === 401) onUnauthorized();
                  return err instanceof ApiError ? err.detail : String(err);
                }
              },
            }),
        ],
      }),
      /* @__PURE__ */ a(Composer, {
        limits: config.limits,
        busy,
        dropped,
        onStop: () => void stop(),
        onSend: (content, attachments) => {
          stick.current = true;
          props.onSend(sessionId, content, attachments);
        },
      }),
    ],
  });
}
function ConnectionBanner({ stream }) {
  switch (stream.state) {
    case 'connected':
      return null;
    case 'connecting':
      return /* @__PURE__ */ a('p', {
        class: 'banner',
        role: 'status',
        children: 'Connecting…',
      });
    case 'lost':
      return /* @__PURE__ */ a('p', {
        class: 'banner warn',
        role: 'status',
        children: [
          'Reconnecting…',
          ' ',
          stream.error.kind === 'unreachable' ? 'the Kesoku API is not reachable' : stream.error.detail,
          ' ',
          '(attempt ',
          stream.attempt,
          '). Nothing is lost: messages you send now go out once it is back.',
        ],
      });
    case 'unauthorized':
      return /* @__PURE__ */ a('p', {
        class: 'banner error',
        role: 'alert',
        children: 'The token is not accepted any more: sign in again.',
      });
    case 'not_found':
      return /* @__PURE__ */ a('p', {
        class: 'banner error',
        role: 'alert',
        children: ['This session is not available to this token: ', stream.error.detail],
      });
  }
}
function Unsent({ item, onRetry, onDiscard }) {
  const label = {
    sending: 'sending…',
    waiting: item.detail ?? 'not sent yet; it is sent when the API answers',
    failed: item.detail ?? 'not sent',
    accepted: 'sent',
  }[item.state];
  return /* @__PURE__ */ a('div', {
    class: `msg user unsent ${item.state}`,
    'data-outbox': item.state,
    children: [
      /* @__PURE__ */ a('span', {
        class: 'who',
        children: 'web',
      }),
      ' ',
      /* @__PURE__ */ a('span', {
        class: 'sep',
        children: '›',
      }),
      ' ',
      /* @__PURE__ */ a('span', {
        class: 'text',
        children: item.content,
      }),
      item.attachments &&
        item.attachments.length > 0 &&
        /* @__PURE__ */ a('ul', {
          class: 'attachments',
          children: item.attachments.map((a$1) =>
            /* @__PURE__ */ a('li', { children: ['📎 ', a$1.name] }, a$1.name),
          ),
        }),
      /* @__PURE__ */ a('span', {
        class: `badge ${item.state === 'failed' ? 'error' : ''}`,
        role: item.state === 'failed' ? 'alert' : 'status',
        children: label,
      }),
      (item.state === 'failed' || item.state === 'waiting') &&
        /* @__PURE__ */ a('span', {
          class: 'actions',
          children: [
            /* @__PURE__ */ a('button', {
              type: 'button',
              class: 'link',
              onClick: () => onRetry(item.id),
              children: item.state === 'failed' ? 'Retry' : 'Send now',
            }),
            /* @__PURE__ */ a('button', {
              type: 'button',
              class: 'link',
              onClick: () => onDiscard(item.id),
              children: 'Discard',
            }),
          ],
        }),
    ],
  });
}
function ApprovalCard(props) {
  const { client, sessionId, pending: p, now } = props;
  const [state, setState] = d({
    busy: false,
    result: null,
  });
  const decide = async (decision) => {
    setState({
      busy: true,
      result: null,
    });
    try {
      const r = await client.decideApproval(sessionId, p.call_id, decision);
      const done = {
        approve: 'Approved',
        deny: 'Denied',
        always: 'Approved (always)',
      }[decision];
      setState({
        busy: true,
        result: `${done} by ${r.by}`,
      });
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
  const left = p.expiresAt !== null ? Math.max(0, (p.expiresAt - now) / 1e3) : null;
  return /* @__PURE__ */ a('section', {
    class: 'approval',
    role: 'group',
    'aria-label': `Approval needed: ${p.tool_name}`,
    'data-call': p.call_id,
    children: [
      /* @__PURE__ */ a('p', {
        children: [
          '🔐 ',
          /* @__PURE__ */ a('strong', { children: p.tool_name }),
          ' waits for your approval',
          left !== null &&
            /* @__PURE__ */ a('span', {
              class: 'dim',
              children: [' · denied in ', formatSeconds(left), ' without an answer'],
            }),
        ],
      }),
      /* @__PURE__ */ a('pre', {
        class: 'subject',
        children: p.subject,
      }),
      /* @__PURE__ */ a('div', {
        class: 'buttons',
        children: [
          /* @__PURE__ */ a('button', {
            type: 'button',
            class: 'primary',
            disabled: state.busy,
            onClick: () => void decide('approve'),
            children: 'Approve',
          }),
          /* @__PURE__ */ a('button', {
            type: 'button',
            disabled: state.busy,
            onClick: () => void decide('deny'),
            children: 'Deny',
          }),
          /* @__PURE__ */ a('button', {
            type: 'button',
            disabled: state.busy,
            title: 'Approve this and the same kind of call for the rest of the session',
            onClick: () => void decide('always'),
            children: 'Always',
          }),
        ],
      }),
      state.result &&
        /* @__PURE__ */ a('p', {
          class: 'dim',
          role: 'status',
          children: state.result,
        }),
    ],
  });
}
var MODES = ['interrupt', 'queue'];
function ChatHeader(props) {
  const { info, sessionId } = props;
  const [editing, setEditing] = d(false);
  const [draft, setDraft] = d('');
  const title = info?.title ?? (info ? sessionId : 'New session');
  const startEdit = () => {
    setDraft(info?.title ?? '');
    setEditing(true);
  };
  const pendingCount = info?.pending_approvals.length ?? 0;
  return /* @__PURE__ */ a('header', {
    class: 'chat-header',
    children: [
      /* @__PURE__ */ a('div', {
        class: 'title-row',
        children: [
          editing
            ? /* @__PURE__ */ a('form', {
                class: 'rename',
                onSubmit: (e) => {
                  e.preventDefault();
                  if (draft.trim() !== '') props.onRename(draft.trim());
                  setEditing(false);
                },
                children: [
                  /* @__PURE__ */ a('input', {
                    'aria-label': 'Session title',
                    value: draft,
                    maxLength: 200,
                    ref: (el) => el?.focus(),
                    onInput: (e) => setDraft(e.currentTarget.value),
                    onKeyDown: (e) => {
                      if (e.key === 'Escape') {
                        e.preventDefault();
                        setEditing(false);
                      }
                    },
                  }),
                  /* @__PURE__ */ a('button', {
                    type: 'submit',
                    children: 'Save',
                  }),
                ],
              })
            : /* @__PURE__ */ a('h1', {
                children: /* @__PURE__ */ a('button', {
                  type: 'button',
                  class: 'title',
                  onClick: startEdit,
                  'aria-label': `Rename session: ${title}`,
                  title: 'Rename',
                  children: [
                    title,
                    ' ',
                    /* @__PURE__ */ a('span', {
                      'aria-hidden': 'true',
                      children: '✎',
                    }),
                  ],
                }),
              }),
          /* @__PURE__ */ a('span', {
            class: 'badge channel',
            title: 'channel',
            children: info?.chatbot_id ?? 'api',
          }),
          /* @__PURE__ */ a('span', {
            class: `badge status ${props.busy ? 'busy' : 'idle'}`,
            role: 'status',
            'aria-label': 'Session status',
            children: pendingCount > 0 ? '✋ waiting for approval' : props.busy ? '● working' : 'idle',
          }),
        ],
      }),
      /* @__PURE__ */ a('div', {
        class: 'controls',
        children: [
          /* @__PURE__ */ a('label', {
            children: [
              'Mode',
              ' ',
              /* @__PURE__ */ a('select', {
                'aria-label': 'Mode: what a new message does while a turn runs',
                value: info?.mode ?? 'interrupt',
                onChange: (e) => props.onMode(e.currentTarget.value),
                children: MODES.map((m) =>
                  /* @__PURE__ */ a(
                    'option',
                    {
                      value: m,
                      title:
                        m === 'interrupt'
                          ? 'a new message stops the running turn'
                          : 'a new message waits for the running turn',
                      children: m,
                    },
                    m,
                  ),
                ),
              }),
            ],
          }),
          /* @__PURE__ */ a('label', {
            children: [
              'Approval',
              ' ',
              /* @__PURE__ */ a('select', {
                'aria-label': 'Tool approval: which tool calls ask before they run',
                value: info?.approval ?? 'default',
                onChange: (e) => {
                  const v = e.currentTarget.value;
                  props.onApproval(v === 'default' ? null : v);
                },
                children: [
                  /* @__PURE__ */ a('option', {
                    value: 'default',
                    children: ['default', info ? ` (${info.approval_in_force})` : ''],
                  }),
                  /* @__PURE__ */ a('option', {
                    value: 'off',
                    title: 'nothing asks',
                    children: 'off',
                  }),
                  /* @__PURE__ */ a('option', {
                    value: 'writes',
                    title: 'commands and file writes ask',
                    children: 'writes',
                  }),
                  /* @__PURE__ */ a('option', {
                    value: 'all',
                    title: 'every tool call asks',
                    children: 'all',
                  }),
                ],
              }),
            ],
          }),
          /* @__PURE__ */ a('button', {
            type: 'button',
            class: `schedules-toggle${props.schedulesOpen ? ' on' : ''}`,
            'aria-expanded': props.schedulesOpen,
            'aria-controls': 'schedules-panel',
            'aria-label': `Schedules (${props.schedules})`,
            onClick: props.onSchedules,
            children: ['⏰ Schedules', props.schedules > 0 ? ` (${props.schedules})` : ''],
          }),
        ],
      }),
    ],
  });
}
// adapters/web/src/storage.tsx
/**
 * What the page keeps in the browser, and where:
 * - the bearer token in **session storage** (this tab only, gone when the tab closes; never in a URL, a cookie or
 *   local storage), so the API's principal rules apply to the page exactly as to any client with that token;
 * - the messages not sent yet (the outbox, adapters/web/src/outbox.ts) in session storage too, so a reload of the
 *   tab sends them once (their ids are idempotency keys);
 * - in **local storage**, only what holds no secret: the theme, and the revision seen per session (unread marks).
 * The page's settings from the server (limits, whether tokens are needed) are in a `<meta name="kesoku-config">`
 * tag that api/routes/web.ts fills in.
 */
var TOKEN_KEY = 'kesoku.token';
var SEEN_KEY = 'kesoku.seen';
var THEME_KEY = 'kesoku.theme';
var OUTBOX_KEY = 'kesoku.outbox';
/** Storage that may be unavailable (private modes, quotas): every access is guarded. */
function read(store, key) {
  try {
    return store.getItem(key);
  } catch {
    return null;
  }
}
function write(store, key, value) {
  try {
    if (value === null) store.removeItem(key);
    else store.setItem(key, value);
  } catch {}
}
var tokenStore = {
  get: () => read(sessionStorage, TOKEN_KEY),
  set: (token) => write(sessionStorage, TOKEN_KEY, token),
};
var outboxStore = {
  get: () => read(sessionStorage, OUTBOX_KEY),
  set: (json) => write(sessionStorage, OUTBOX_KEY, json),
};
/** The revision last seen per session id. */
var seenStore = {
  all() {
    try {
      const parsed = JSON.parse(read(localStorage, SEEN_KEY) ?? '{}');
      return typeof parsed === 'object' && parsed !== null ? parsed : {};
    } catch {
      return {};
    }
  },
  set(sessionId, revision) {
    const all = seenStore.all();
    if ((all[sessionId] ?? -1) >= revision) return;
    all[sessionId] = revision;
    const entries = Object.entries(all);
    const kept = entries.length > 500 ? Object.fromEntries(entries.slice(-500)) : all;
    write(localStorage, SEEN_KEY, JSON.stringify(kept));
  },
};
var themeStore = {
  get() {
    const v = read(localStorage, THEME_KEY);
    return v === 'light' || v === 'dark' ? v : 'auto';
  },
  set(choice) {
    write(localStorage, THEME_KEY, choice === 'auto' ? null : choice);
    applyTheme(choice);
  },
};
/** Sets `data-theme` on the root element (absent: the system's `prefers-color-scheme`). */
function applyTheme(choice) {
  if (choice === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}
var DEFAULT_CONFIG = {
  auth: false,
  limits: {
    attachmentBytes: 184320,
    attachments: 16,
    bodyBytes: 262144,
    contentBytes: 65536,
  },
};
/** The config of the `<meta name="kesoku-config">` tag; the defaults when it is missing or unreadable. */
function pageConfig() {
  const raw = document.querySelector('meta[name="kesoku-config"]')?.getAttribute('content');
  if (!raw) return DEFAULT_CONFIG;
  try {
    const parsed = JSON.parse(raw);
    return {
      auth: parsed.auth === true,
      limits: {
        ...DEFAULT_CONFIG.limits,
        ...parsed.limits,
      },
    };
  } catch {
    return DEFAULT_CONFIG;
  }
}
// adapters/web/src/sessions.tsx
/**
 * The sessions this token reaches (`GET /v1/sessions`, newest first): title, channel, status and unread marks,
 * kept live by reading the list every few seconds and, for a session whose revision moved, the session itself
 * (its status and the calls waiting for approval — every change of either comes with a new revision, so nothing
 * else needs reading). A session is unread when its revision passed the one this browser last showed
 * (adapters/web/src/storage.ts `seenStore`); a session seen for the first time counts as read. The search box
 * filters by title (and id) over every session, reading further pages while it is used.
 */
/** Sessions read per page; pages read at most while searching. */
var PAGE = 100;
var MAX_PAGES = 20;
/** How many of the newest sessions get their status read. */
var DETAILED = 40;
/** Reads and refreshes the list every `everyMs`; all pages while `searching`. */
function useSessions(client, opts) {
  const [sessions, setSessions] = d([]);
  const [problem, setProblem] = d(null);
  const [loaded, setLoaded] = d(false);
  const known = T(/* @__PURE__ */ new Map());
  const wake = T(() => void 0);
  const latest = T(opts);
  latest.current = opts;
  A(() => {
    let stopped = false;
    let timer = null;
    const read = async () => {
      if (timer) clearTimeout(timer);
      timer = null;
      try {
        const pages = [];
        let cursor = null;
        for (let i = 0; i < (latest.current.searching ? MAX_PAGES : 1); i++) {
          const page = await client.listSessions({
            cursor,
            limit: PAGE,
          });
          pages.push(...page.sessions);
          cursor = page.next_cursor;
          if (!cursor) break;
        }
        const next = [];
        const detail = [];
        pages.forEach((s, i) => {
          const before = known.current.get(s.id);
          const merged = {
            ...before,
            ...s,
          };
          next.push(merged);
          if (i < DETAILED && (!before || before.revision !== s.revision || before.status === void 0))
            detail.push(
              client.getSession(s.id).then(
                (info) => {
                  if (!info) return;
                  merged.status = info.status;
                  merged.waiting = info.pending_approvals.length;
                },
                () => void 0,
              ),
            );
        });
        await Promise.all(detail);
        if (stopped) return;
        known.current = new Map(next.map((s) => [s.id, s]));
        setSessions(next);
        setProblem(null);
        setLoaded(true);
      } catch (err) {
        if (stopped) return;
        if (err instanceof ApiError && err.status === 401) {
          latest.current.onUnauthorized();
          return;
        }
        setProblem(
          err instanceof ApiError && err.kind === 'unreachable'
            ? 'the Kesoku API is not reachable'
            : String(err),
        );
      }
      if (!stopped) timer = setTimeout(() => void read(), latest.current.everyMs ?? 4e3);
    };
    wake.current = () => void read();
    read();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [client]);
  A(() => {
    if (opts.searching) wake.current();
  }, [opts.searching]);
  return {
    sessions,
    problem,
    loaded,
    refresh: () => wake.current(),
  };
}
/** The title people read: the session's title, else its id. */
function titleOf(s) {
  return s.title && s.title.trim() !== '' ? s.title : s.id;
}
function SessionList(props) {
  const { state, current, currentRevision, query, onQuery, onOpen, onNew } = props;
  const seen = seenStore.all();
  const q = query.trim().toLowerCase();
  const shown = state.sessions.filter(
    (s) => q === '' || titleOf(s).toLowerCase().includes(q) || s.id.toLowerCase().includes(q),
  );
  A(() => {
    const all = seenStore.all();
    for (const s of state.sessions) if (all[s.id] === void 0) seenStore.set(s.id, s.revision);
  }, [state.sessions]);
  return /* @__PURE__ */ a('nav', {
    class: 'sessions',
    'aria-label': 'Sessions',
    children: [
      /* @__PURE__ */ a('div', {
        class: 'sessions-head',
        children: [
          /* @__PURE__ */ a('button', {
            type: 'button',
            class: 'primary new',
            onClick: onNew,
            children: '+ New session',
          }),
          /* @__PURE__ */ a('input', {
            type: 'search',
            'aria-label': 'Search sessions by title',
            placeholder: 'Search by title',
            value: query,
            onInput: (e) => onQuery(e.currentTarget.value),
          }),
        ],
      }),
      state.problem &&
        /* @__PURE__ */ a('p', {
          class: 'problem',
          role: 'status',
          children: ['Sessions not refreshed: ', state.problem],
        }),
      /* @__PURE__ */ a('ul', {
        children: [
          shown.map((listed) => {
            const open = listed.id === current;
            const s = open
              ? {
                  ...listed,
                  status: props.currentStatus.busy ? 'processing' : 'idle',
                  waiting: props.currentStatus.waiting,
                }
              : listed;
            const held = open ? Math.max(currentRevision, seen[s.id] ?? 0) : (seen[s.id] ?? s.revision);
            const unread = !open && s.revision > held;
            return /* @__PURE__ */ a(
              'li',
              {
                children: /* @__PURE__ */ a('button', {
                  type: 'button',
                  class: `session${open ? ' current' : ''}${unread ? ' unread' : ''}`,
                  'aria-current': open ? 'page' : void 0,
                  'data-session': s.id,
                  'aria-label': `${titleOf(s)}${unread ? ', unread' : ''}${s.waiting ? ', waiting for approval' : ''}${s.status === 'processing' ? ', working' : ''}`,
                  onClick: () => onOpen(s.id),
                  children: [
                    /* @__PURE__ */ a('span', {
                      class: 'name',
                      children: titleOf(s),
                    }),
                    /* @__PURE__ */ a('span', {
                      class: 'meta',
                      children: [
                        /* @__PURE__ */ a('span', {
                          class: 'badge channel',
                          children: s.chatbot_id,
                        }),
                        s.waiting
                          ? /* @__PURE__ */ a('span', {
                              class: 'badge waiting',
                              children: '✋ approval',
                            })
                          : null,
                        s.status === 'processing'
                          ? /* @__PURE__ */ a('span', {
                              class: 'badge busy',
                              children: '● working',
                            })
                          : null,
                        unread &&
                          /* @__PURE__ */ a('span', {
                            class: 'unread-dot',
                            'aria-hidden': 'true',
                            children: '●',
                          }),
                      ],
                    }),
                  ],
                }),
              },
              s.id,
            );
          }),
          shown.length === 0 &&
            state.sessions.length > 0 &&
            /* @__PURE__ */ a('li', {
              class: 'dim',
              children: ['No session title matches “', query, '”.'],
            }),
          state.sessions.length === 0 &&
            !state.problem &&
            /* @__PURE__ */ a('li', {
              class: 'dim',
              children: 'No sessions yet.',
            }),
        ],
      }),
    ],
  });
}
// adapters/web/src/app.tsx
/**
 * The page: sign-in when the API needs a token (kept in session storage, sent only as `Authorization: Bearer`),
 * the sessions list beside the open session, the theme switch (system, light, dark), and the one outbox every
 * view sends through. The open session's id is in the location's fragment (`#s=<id>`), so a reload comes back to
 * it; nothing secret ever goes into the URL. Any 401 forgets the token and asks for one again.
 */
/** A fresh id for a message or a session: 20 random hex digits (crypto.getRandomValues works on plain HTTP too). */
function randomId(prefix) {
  return `${prefix}-${[...crypto.getRandomValues(/* @__PURE__ */ new Uint8Array(10))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}
function sessionFromHash() {
  return /^#s=([A-Za-z0-9_.:@-]{1,128})$/.exec(location.hash)?.[1] ?? null;
}
function SignIn({ problem, onToken }) {
  const [value, setValue] = d('');
  const [error, setError] = d(problem);
  const [busy, setBusy] = d(false);
  return /* @__PURE__ */ a('main', {
    class: 'signin',
    children: /* @__PURE__ */ a('form', {
      'aria-labelledby': 'signin-title',
      onSubmit: async (e) => {
        e.preventDefault();
        if (value.trim() === '') return;
        setBusy(true);
        setError(await onToken(value.trim()));
        setBusy(false);
      },
      children: [
        /* @__PURE__ */ a('h1', {
          id: 'signin-title',
          children: 'Kesoku',
        }),
        /* @__PURE__ */ a('p', {
          children:
            'This Kesoku API needs a token. It stays in this tab only (session storage) and is sent only to this server.',
        }),
        /* @__PURE__ */ a('label', {
          for: 'token',
          children: 'API token',
        }),
        /* @__PURE__ */ a('input', {
          id: 'token',
          type: 'password',
          autocomplete: 'current-password',
          value,
          onInput: (e) => setValue(e.currentTarget.value),
          'aria-describedby': error ? 'signin-error' : void 0,
        }),
        error &&
          /* @__PURE__ */ a('p', {
            id: 'signin-error',
            class: 'problem',
            role: 'alert',
            children: error,
          }),
        /* @__PURE__ */ a('button', {
          type: 'submit',
          class: 'primary',
          disabled: busy,
          children: 'Sign in',
        }),
      ],
    }),
  });
}
function ThemeSwitch() {
  const [choice, setChoice] = d(themeStore.get());
  return /* @__PURE__ */ a('label', {
    class: 'theme',
    children: [
      /* @__PURE__ */ a('span', {
        class: 'sr-only',
        children: 'Theme',
      }),
      /* @__PURE__ */ a('select', {
        'aria-label': 'Theme',
        value: choice,
        onChange: (e) => {
          const v = e.currentTarget.value;
          setChoice(v);
          themeStore.set(v);
        },
        children: [
          /* @__PURE__ */ a('option', {
            value: 'auto',
            children: '◐ system',
          }),
          /* @__PURE__ */ a('option', {
            value: 'light',
            children: '☀ light',
          }),
          /* @__PURE__ */ a('option', {
            value: 'dark',
            children: '☾ dark',
          }),
        ],
      }),
    ],
  });
}
function Shell({ client, config, onUnauthorized, onSignOut }) {
  const [current, setCurrent] = d(sessionFromHash());
  const [query, setQuery] = d('');
  const [drawer, setDrawer] = d(false);
  const [revision, setRevision] = d(0);
  const [items, setItems] = d([]);
  const [status, setStatus] = d({
    busy: false,
    waiting: 0,
  });
  const list = useSessions(client, {
    searching: query.trim() !== '',
    onUnauthorized,
  });
  const outbox = w(
    () =>
      new Outbox({
        client,
        load: outboxStore.get,
        save: outboxStore.set,
        onChange: (next) => setItems(next),
        onUnauthorized,
      }),
    [client, onUnauthorized],
  );
  A(() => {
    setItems(outbox.items());
    const online = () => outbox.wake();
    window.addEventListener('online', online);
    return () => {
      window.removeEventListener('online', online);
      outbox.close();
    };
  }, [outbox]);
  A(() => {
    const onHash = () => setCurrent(sessionFromHash());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const open = b((id) => {
    history.replaceState(null, '', `#s=${id}`);
    setCurrent(id);
    setRevision(0);
    setDrawer(false);
  }, []);
  A(() => {
    if (current === null && list.loaded) open(list.sessions[0]?.id ?? randomId('web'));
  }, [current, list.loaded, list.sessions, open]);
  const onActivity = b(
    (id, rev) => {
      seenStore.set(id, rev);
      if (id === current) setRevision(rev);
    },
    [current],
  );
  const onSend = b(
    (sessionId, content, attachments) => {
      outbox.add({
        id: randomId('web'),
        sessionId,
        content,
        ...(attachments.length ? { attachments } : {}),
      });
      setTimeout(list.refresh, 500);
    },
    [outbox, list.refresh],
  );
  return /* @__PURE__ */ a('div', {
    class: `app${drawer ? ' drawer-open' : ''}`,
    children: [
      /* @__PURE__ */ a('header', {
        class: 'topbar',
        children: [
          /* @__PURE__ */ a('button', {
            type: 'button',
            class: 'icon drawer-toggle',
            'aria-label': drawer ? 'Hide sessions' : 'Show sessions',
            'aria-expanded': drawer,
            onClick: () => setDrawer(!drawer),
            children: '☰',
          }),
          /* @__PURE__ */ a('span', {
            class: 'brand',
            children: 'Kesoku',
          }),
          /* @__PURE__ */ a('span', { class: 'spacer' }),
          /* @__PURE__ */ a(ThemeSwitch, {}),
          onSignOut &&
            /* @__PURE__ */ a('button', {
              type: 'button',
              class: 'link',
              onClick: onSignOut,
              children: 'Sign out',
            }),
        ],
      }),
      /* @__PURE__ */ a(SessionList, {
        state: list,
        current,
        currentRevision: revision,
        currentStatus: status,
        query,
        onQuery: setQuery,
        onOpen: open,
        onNew: () => open(randomId('web')),
      }),
      /* @__PURE__ */ a('main', {
        class: 'main',
        children:
          current !== null &&
          /* @__PURE__ */ a(
            ChatView,
            {
              client,
              sessionId: current,
              config,
              outbox: items,
              onSend,
              onRetry: (id) => outbox.retry(id),
              onDiscard: (id) => outbox.discard(id),
              onCommittedIds: (sessionId, has) => outbox.settle(sessionId, has),
              onUnauthorized,
              onActivity,
              onConnected: () => outbox.wake(),
              onStatus: (id, s) => {
                if (id === current) setStatus(s);
              },
            },
            current,
          ),
      }),
    ],
  });
}
function App() {
  const config = w(pageConfig, []);
  const [token, setToken] = d(tokenStore.get());
  const [problem, setProblem] = d(null);
  const client = w(() => new KesokuClient({ token: tokenStore.get }), []);
  const onUnauthorized = b(() => {
    tokenStore.set(null);
    setToken(null);
    setProblem('The token was not accepted (401). Sign in again.');
  }, []);
  const signIn = b(async (candidate) => {
    const probe = new KesokuClient({ token: () => candidate });
    try {
      await probe.listSessions({ limit: 1 });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return 'That token was not accepted (401).';
      if (err instanceof ApiError && err.kind === 'unreachable')
        return 'The Kesoku API is not reachable; try again.';
      return `Could not sign in: ${err instanceof ApiError ? err.detail : String(err)}`;
    }
    tokenStore.set(candidate);
    setProblem(null);
    setToken(candidate);
    return null;
  }, []);
  if (config.auth && !token)
    return /* @__PURE__ */ a(SignIn, {
      problem,
      onToken: signIn,
    });
  return /* @__PURE__ */ a(
    Shell,
    {
      client,
      config,
      onUnauthorized,
      onSignOut: config.auth
        ? () => {
            tokenStore.set(null);
            setProblem(null);
            setToken(null);
          }
        : null,
    },
    token ?? 'open',
  );
}
/** Starts the page in `root`. */
function start(root) {
  applyTheme(themeStore.get());
  Q(/* @__PURE__ */ a(App, {}), root);
}
// adapters/web/src/main.tsx
/** The page's entry point (adapters/web/index.html loads the built bundle of this module). */
start(document.getElementById('app'));
