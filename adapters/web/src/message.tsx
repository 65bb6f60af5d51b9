/**
 * One committed message as the page shows it, kind by kind as the terminal client prints it
 * (adapters/cli/render.ts, docs/message-model.md §4.3 and the CLI column of §5.3): the person's messages with their
 * sender and attachments, thoughts in a cyan panel, tool calls in a yellow panel (`$ command`, or one line per
 * argument), tool output in a magenta panel (✅/❌/⏹️, the summary, the output, the time it took), the final reply
 * as Markdown with its metrics line (`⏱ 2.1s · 🔧 1 tool · 1042 tokens · turn 3`), notifications dim, crash notices
 * red. Panels are collapsible (`<details>`). All text is rendered as text, except the Markdown of replies, which
 * goes through the sanitiser (adapters/web/src/markdown.tsx).
 */
import type { Message, TurnMetrics } from '../../../domain/message.ts';
import { messageKind } from '../../../domain/message-kind.ts';
import { TOOL_MARK, formatSeconds, metricsSummary, toolResultState } from '../../../domain/presentation.ts';
import type { ToolApproval } from '../../../domain/tool-approval.ts';
import { toolLabel } from '../../../domain/tool-label.ts';
import { Markdown } from './markdown.tsx';

/** "⏱ 2.1s · 🔧 1 tool · 1042 tokens · turn 3", as the terminal client prints it. */
export function metricsLine(m: TurnMetrics): string {
  return `${metricsSummary(m)} · turn ${m.session_turns}`;
}

/** Bytes for people: "512 B", "12.3 KiB", "1.5 MiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

const OUTPUT_CHARS = 20_000;
const SECTION = /^=== (STDOUT|STDERR) ===$/;

/** Shell output without its empty sections and the STDOUT marker (architecture.md "Tools" format). */
function outputText(content: string): string {
  const lines = content.replace(/\s+$/, '').split('\n');
  if (!lines.some((l) => SECTION.test(l))) return content.replace(/\s+$/, '');
  const out: string[] = [];
  let section = '';
  let buffer: string[] = [];
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

function toolStart(call: Message | undefined): number | null {
  if (!call) return null;
  const approval = call.metadata?.approval as ToolApproval | undefined;
  const t = Date.parse(approval?.at ?? call.created_at);
  return Number.isFinite(t) ? t : null;
}

export interface MessageProps {
  message: Message;
  /** The tool_call a tool_result answers (for its elapsed time). */
  callOf?: (result: Message) => Message | undefined;
}

/** One message; null for kinds people never see (the caller filters those already). */
export function MessageView({ message: m, callOf }: MessageProps) {
  switch (messageKind(m)) {
    case 'user_question':
      return <UserMessage m={m} />;
    case 'cron_prompt':
      return (
        <div class="msg user cron">
          <span class="who">⏰ {m.sender}</span> <span class="sep">›</span>{' '}
          <span class="text">{m.content}</span>
        </div>
      );
    case 'manual_compaction_prompt':
      return <div class="msg notice">⟳ compaction requested ({m.sender})</div>;
    case 'thought':
      return (
        <details class="panel thought">
          <summary>
            <span class="title">💭 thought</span> <span class="preview">{firstLine(m.content)}</span>
          </summary>
          <pre class="body">{m.content.trim() || '(empty)'}</pre>
        </details>
      );
    case 'tool_call':
      return <ToolCall m={m} />;
    case 'tool_result':
      return <ToolResult m={m} call={callOf?.(m)} />;
    case 'final_reply':
      return <Reply m={m} />;
    case 'notification':
      return <div class="msg notice">· {m.content}</div>;
    case 'crash_notice':
      return (
        <div class="msg crash" role="alert">
          {m.content}
        </div>
      );
    default:
      return null;
  }
}

function firstLine(s: string): string {
  const line = s.trim().split('\n')[0] ?? '';
  return line.length > 90 ? `${line.slice(0, 90)}…` : line;
}

function UserMessage({ m }: { m: Message }) {
  const attachments = m.metadata?.attachments ?? [];
  return (
    <div class="msg user">
      <span class="who">{m.sender}</span> <span class="sep">›</span> <span class="text">{m.content}</span>
      {attachments.length > 0 && (
        <ul class="attachments" aria-label="Attachments">
          {attachments.map((a) => (
            <li key={a.name}>
              📎 {a.name}
              {a.size !== undefined ? ` (${formatBytes(a.size)})` : ''}
            </li>
          ))}
        </ul>
      )}
      {m.status === 'interrupted' && <span class="badge">interrupted</span>}
      {m.status === 'error' && <span class="badge error">failed</span>}
    </div>
  );
}

function ToolCall({ m }: { m: Message }) {
  const name = toolLabel(m.metadata?.tool_name ?? 'tool');
  const args = m.metadata?.tool_arguments;
  const approval = m.metadata?.approval as ToolApproval | undefined;
  const command = typeof args?.command === 'string' ? args.command : null;
  const rest = args ? Object.entries(args).filter(([k]) => k !== 'command' || command === null) : [];
  return (
    <details class="panel tool-call">
      <summary>
        <span class="title">🔧 {name}</span>
        {command !== null && <code class="preview">$ {firstLine(command)}</code>}
        {approval && approval.state !== 'pending' && (
          <span class={`badge approval-${approval.state}`}>
            {approval.state.replace('_', ' ')}
            {approval.by ? ` by ${approval.by}` : ''}
          </span>
        )}
      </summary>
      <pre class="body">
        {command !== null && <span class="dim">$ </span>}
        {command}
        {rest.map(([k, v]) => (
          <span key={k}>
            {'\n'}
            <span class="dim">{k}: </span>
            {typeof v === 'string' ? v : JSON.stringify(v, null, 2)}
          </span>
        ))}
        {!args && m.content}
      </pre>
    </details>
  );
}

function ToolResult({ m, call }: { m: Message; call: Message | undefined }) {
  const name = toolLabel(m.metadata?.tool_name ?? m.sender);
  const state = toolResultState(m);
  const summary = (m.metadata?.tool_result ?? '').trim();
  const output = outputText(m.content);
  const start = m.metadata?.synthetic === true ? null : toolStart(call);
  const end = Date.parse(m.created_at);
  const took =
    start !== null && Number.isFinite(end) && end >= start ? formatSeconds((end - start) / 1000) : null;
  const shown = output.length > OUTPUT_CHARS ? `${output.slice(0, OUTPUT_CHARS)}\n… (cut here)` : output;
  return (
    <details class={`panel tool-result ${state}`}>
      <summary>
        <span class="title">
          {TOOL_MARK[state]} {name}
        </span>
        {summary !== '' && <span class="preview">{summary}</span>}
        {took !== null && <span class="elapsed">{took}</span>}
      </summary>
      <pre class="body">{shown === '' ? '(no output)' : shown}</pre>
      {typeof m.metadata?.full_output_path === 'string' && (
        <p class="dim">full output: {m.metadata.full_output_path}</p>
      )}
    </details>
  );
}

function Reply({ m }: { m: Message }) {
  const summary = m.metadata?.compacted_through_seq !== undefined;
  const metrics = m.metadata?.turn_metrics;
  return (
    <div class="msg reply">
      <span class="who">{summary ? `${m.sender} (summary)` : m.sender}</span> <span class="sep">›</span>
      <Markdown text={m.content} />
      {metrics && <div class="metrics">{metricsLine(metrics)}</div>}
    </div>
  );
}
