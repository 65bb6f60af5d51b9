/**
 * The running turn under the transcript: the text streamed so far in the current step (rebuilt whole from the
 * snapshot after a reload, marked with "…" when the API joined mid-step), the step's tools ⏳ → ✅/❌ with the time
 * they take and, while a command runs, its last output lines, the turn's notices, and "⋯ thinking" while nothing else is shown — the terminal client's live region
 * (adapters/cli/render.ts renderLive) as a page.
 */
import { TOOL_MARK, formatSeconds } from '../../../domain/presentation.ts';
import { Markdown } from './markdown.tsx';
import type { LiveTool, LiveView } from './transcript.ts';
import { toolLabel } from '../../../domain/tool-label.ts';

/** "3.2s" since `startedAt` (to `finishedAt` when done); null when the start is unknown. */
export function elapsed(t: LiveTool, nowMs: number): string | null {
  if (t.startedAt === undefined) return null;
  const end = t.finishedAt ?? nowMs;
  return formatSeconds(Math.max(0, end - t.startedAt) / 1000);
}

function ToolLine({ t, now }: { t: LiveTool; now: number }) {
  const took = elapsed(t, now);
  if (t.status === 'waiting')
    return (
      <li class="tool waiting">
        ✋ {toolLabel(t.name)} <span class="dim">— waiting for approval</span>
      </li>
    );
  const mark =
    t.status === 'running' ? TOOL_MARK.running : t.status === 'ok' ? TOOL_MARK.ok : TOOL_MARK.failed;
  return (
    <li class={`tool ${t.status}`}>
      {mark} {toolLabel(t.name)}
      {t.summary ? <span> — {t.summary}</span> : null}
      {took !== null && <span class="elapsed">{took}</span>}
      {t.status === 'running' && t.outputTail ? (
        <pre class="tail" aria-label="Last lines of its output">
          {t.outputTail}
        </pre>
      ) : null}
    </li>
  );
}

export function LiveTurnView({
  live,
  now,
  agent = 'Kesoku',
}: {
  live: LiveView;
  now: number;
  agent?: string;
}) {
  const idle = live.text === '' && live.tools.length === 0;
  return (
    <div class="live" aria-busy="true" data-turn={live.turnId}>
      {live.text !== '' && (
        <div class="msg reply streaming">
          <span class="who">{agent}</span> <span class="sep">›</span>
          {live.textOffset > 0 && (
            <span class="dim" title="the start of this text was streamed before this server saw it">
              {' '}
              …
            </span>
          )}
          <div class="live-text">
            <Markdown text={live.text} streaming />
          </div>
        </div>
      )}
      {live.tools.length > 0 && (
        <ul class="tools" aria-label="Tools of this step">
          {live.tools.map((t) => (
            <ToolLine key={t.call_id} t={t} now={now} />
          ))}
        </ul>
      )}
      {live.notices.map((n, i) => (
        <div class="msg notice" key={i}>
          · {n}
        </div>
      ))}
      {idle && (
        <div class="status dim">{live.status === 'running_tools' ? '⋯ running tools' : '⋯ thinking'}</div>
      )}
    </div>
  );
}
