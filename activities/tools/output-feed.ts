/**
 * The live tail of a running command's output, for the people watching the turn: the last lines of stdout and
 * stderr together, handed to `publish` at most once per interval while output keeps coming (never for a command
 * that prints nothing). What the model gets is the stored result; this is only what a status line shows meanwhile.
 */

/** Bounds of a published tail. */
export const OUTPUT_TAIL_LIMITS = {
  /** Lines in a tail (the last ones). */
  lines: 5,
  /** Characters per line; a longer line keeps its end. */
  lineChars: 200,
  /** Characters kept from the output to cut the tail from. */
  keptChars: 4096,
} as const;

/** One published tail: its last lines (`\n`-separated, no trailing newline) and the output's total size. */
export interface OutputTail {
  tail: string;
  /** Characters of output seen so far (all of it, not only the tail). */
  outputChars: number;
}

/**
 * The last {@link OUTPUT_TAIL_LIMITS.lines} non-empty lines of `text`, each cut to its last
 * {@link OUTPUT_TAIL_LIMITS.lineChars} characters. A carriage return (a progress bar redrawing its line) keeps
 * what follows it.
 */
export function tailLines(text: string): string {
  return text
    .split('\n')
    .map((l) => l.slice(l.lastIndexOf('\r') + 1).trimEnd())
    .filter((l) => l.trim() !== '')
    .slice(-OUTPUT_TAIL_LIMITS.lines)
    .map((l) => (l.length > OUTPUT_TAIL_LIMITS.lineChars ? `…${l.slice(-OUTPUT_TAIL_LIMITS.lineChars)}` : l))
    .join('\n');
}

/**
 * Collects output and publishes its tail, throttled: the first output is published after `intervalMs`, and
 * then at most once per `intervalMs` while more arrives. {@link close} stops it (nothing is published after).
 */
export class OutputFeed {
  private kept = '';
  private total = 0;
  private timer: NodeJS.Timeout | null = null;
  private lastPublished = '';
  private closed = false;
  private readonly publish: (t: OutputTail) => void;
  private readonly intervalMs: number;

  /**
   * @param publish receives each tail; its failures are its own (called without awaiting)
   * @param intervalMs least time between two publications, in ms (default 1000)
   */
  constructor(publish: (t: OutputTail) => void, intervalMs = 1000) {
    this.publish = publish;
    this.intervalMs = intervalMs;
  }

  /** Adds decoded output (either stream). */
  push(text: string): void {
    if (this.closed || text === '') return;
    this.total += text.length;
    this.kept = (this.kept + text).slice(-OUTPUT_TAIL_LIMITS.keptChars);
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** The tail of the output so far ('' before any). */
  currentTail(): string {
    return tailLines(this.kept);
  }

  /** Stops publishing. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private flush(): void {
    this.timer = null;
    if (this.closed) return;
    const tail = tailLines(this.kept);
    if (tail === '' || tail === this.lastPublished) return;
    this.lastPublished = tail;
    try {
      this.publish({ tail, outputChars: this.total });
    } catch {
      // Live output is best effort.
    }
  }
}
