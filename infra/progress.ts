/**
 * Start-up progress for a person watching `npm start` (and `npm run temporal:install`): each step — preparing
 * Postgres, fetching or building the Temporal CLI, starting the dev server, the worker, the API — says when it
 * begins and how long it took. On a terminal, the steps still running share one live line with a ticking
 * elapsed time; elsewhere (a log, a pipe) a step that is still running prints a "still …" line every 15 s, so
 * no step is silent for minutes.
 *
 * The parts that start servers (infra/temporal-server.ts, infra/postgres-server.ts) report through
 * {@link progress}; a process that wants the report installs one with {@link setProgress}. Without one, steps
 * are silent (tests, the worker and API processes, which start no servers).
 */

/** One step of the start-up. */
export interface ProgressStep {
  /** What the step is doing now (e.g. `downloading modules (12)`); shown on the live line or the next "still" line. */
  update(detail: string): void;
  /** Ends the step with one line `name: text (elapsed)`. */
  done(text?: string): void;
  /** Ends the step as failed (`name: text (elapsed)`, marked failed). */
  fail(text?: string): void;
}

/** A start-up report. */
export interface Progress {
  /** Begins a step named `name` (e.g. `Postgres`) doing `text` (e.g. `starting`). */
  step(name: string, text: string): ProgressStep;
  /** A line of its own between steps (e.g. a leftover server stopped). */
  note(line: string): void;
  /** Stops the timers and clears the live line. */
  close(): void;
}

/** Elapsed time for a person: `0.4 s`, `12 s`, `3m25s`. */
export function formatElapsed(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

const silent: Progress = {
  step: () => ({ update: () => undefined, done: () => undefined, fail: () => undefined }),
  note: () => undefined,
  close: () => undefined,
};

let installed: Progress | null = null;

/** The installed report, or a silent one. */
export function progress(): Progress {
  return installed ?? silent;
}

/** True when a process installed a report with {@link setProgress}. */
export function hasProgress(): boolean {
  return installed !== null;
}

/** Installs `p` as the process's report (null removes it). */
export function setProgress(p: Progress | null): void {
  installed = p;
}

interface Running {
  name: string;
  detail: string;
  started: number;
  lastLine: number;
}

/**
 * A report written to `out` (default stderr), every line prefixed `kesoku: `.
 * @param opts.live the terminal mode with one redrawn line (default: `out.isTTY`)
 * @param opts.stillEveryMs how often a running step says it still runs when not live (default 15 000 ms)
 * @param opts.now the clock (tests)
 */
export function createProgress(
  opts: {
    out?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
    live?: boolean;
    stillEveryMs?: number;
    now?: () => number;
  } = {},
): Progress {
  const out = opts.out ?? process.stderr;
  const live = opts.live ?? out.isTTY === true;
  const stillEveryMs = opts.stillEveryMs ?? 15_000;
  const now = opts.now ?? Date.now;
  const running = new Set<Running>();
  let liveShown = false;
  const clearLive = () => {
    if (live && liveShown) out.write('\r\x1b[2K');
    liveShown = false;
  };
  const drawLive = () => {
    if (!live || running.size === 0) return;
    const width = Math.max(20, (out.columns ?? 80) - 1);
    const text = [...running]
      .map((r) => `${r.name}: ${r.detail} (${formatElapsed(now() - r.started)})`)
      .join(' · ');
    out.write(`\r\x1b[2K… ${text.length > width - 2 ? text.slice(0, width - 3) + '…' : text}`);
    liveShown = true;
  };
  const line = (text: string) => {
    clearLive();
    out.write(`kesoku: ${text}\n`);
    drawLive();
  };
  const tick = () => {
    if (live) return drawLive();
    const t = now();
    for (const r of running) {
      if (t - r.lastLine < stillEveryMs) continue;
      r.lastLine = t;
      line(`${r.name}: still ${r.detail} (${formatElapsed(t - r.started)})`);
    }
  };
  let timer: NodeJS.Timeout | null = null;
  const ensureTimer = () => {
    if (timer || running.size === 0) return;
    timer = setInterval(tick, live ? 1000 : Math.min(1000, stillEveryMs));
    timer.unref();
  };
  const stopTimerIfIdle = () => {
    if (timer && running.size === 0) {
      clearInterval(timer);
      timer = null;
    }
  };
  return {
    step(name, text) {
      const r: Running = { name, detail: text, started: now(), lastLine: now() };
      running.add(r);
      if (!live) line(`${name}: ${text}…`);
      else drawLive();
      ensureTimer();
      const end = (mark: string, endText: string | undefined, fallback: string) => {
        if (!running.delete(r)) return;
        stopTimerIfIdle();
        line(`${name}: ${mark}${endText ?? fallback} (${formatElapsed(now() - r.started)})`);
      };
      return {
        update(detail) {
          r.detail = detail;
          drawLive();
        },
        done: (endText) => end('', endText, 'done'),
        fail: (endText) => end('failed: ', endText, r.detail),
      };
    },
    note: (text) => line(text),
    close() {
      running.clear();
      stopTimerIfIdle();
      clearLive();
    },
  };
}
