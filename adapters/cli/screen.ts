/**
 * Where the client's output goes, and how the running turn is shown live:
 *
 * - `region` (stdout is a terminal): the live part — the last rows of the text streamed so far and the tools
 *   still running — sits between the transcript and the input prompt and is redrawn in place; committed output
 *   is printed above it, so the transcript holds each message once and typing is never interrupted.
 * - `append` (`--live` on a pipe): only the new suffix of the streamed text is written, a newline ends a stream
 *   that was reset, tool progress gets a line each; committed messages follow as usual.
 * - `off` (the default on a pipe): committed messages only, so a scripted run's output is the same every time.
 */
import type { Interface } from 'node:readline';
import type { LiveChange, LiveView } from './live.ts';
import { clean, renderLive, renderPlan, renderToolProgress, rowsOf, type RenderOptions } from './render.ts';

export type LiveMode = 'region' | 'append' | 'off';

/** A writable terminal or pipe (process.stdout in the client, a collector in tests). */
export interface Output {
  write(chunk: string): unknown;
  columns?: number;
}

const ESC = '\u001b[';

/** See the module comment. */
export class Screen {
  private readonly out: Output;
  readonly mode: LiveMode;
  private readonly render: RenderOptions;
  private rl: Interface | null = null;
  private promptShown = false;
  /** Lines of the live region on screen (`region`: each takes one row). */
  private liveLines: string[] = [];
  /** `append`: the last write left the cursor in the middle of a line. */
  private midLine = false;

  constructor(out: Output, mode: LiveMode, render: RenderOptions) {
    this.out = out;
    this.mode = mode;
    this.render = render;
  }

  /** The readline interface whose prompt sits under the output (`region` mode). */
  attach(rl: Interface): void {
    this.rl = rl;
  }

  /** Removes the live region and the prompt and forgets the readline interface (it is closing). */
  detach(): void {
    if (this.mode === 'region' && (this.liveLines.length > 0 || this.promptShown)) {
      this.out.write(this.eraseSequence());
    }
    this.liveLines = [];
    this.promptShown = false;
    this.rl = null;
  }

  /** Prints a block (no trailing newline needed) above the live region and the prompt. */
  print(block: string): void {
    if (this.mode === 'region') {
      this.out.write(`${this.eraseSequence()}${block}\n${this.liveBlock()}`);
      this.redrawPrompt();
      return;
    }
    this.out.write(`${this.midLine ? '\n' : ''}${block}\n`);
    this.midLine = false;
  }

  /** Shows what a snapshot changed (`append`) or the live view (`region`). */
  live(change: LiveChange, view: LiveView | null): void {
    if (this.mode === 'region') {
      this.setLive(view ? renderLive(view, this.render) : []);
    } else if (this.mode === 'append') {
      const s = this.render.style;
      let chunk = '';
      if (change.reset && this.midLine) chunk += '\n';
      let mid = this.midLine && !change.reset;
      // Streamed model text: control sequences removed before the client's own colour is added.
      const appended = clean(change.appended);
      if (appended !== '') {
        chunk += s.dim(appended);
        mid = !appended.endsWith('\n');
      }
      for (const t of change.tools) {
        chunk += `${mid ? '\n' : ''}${renderToolProgress(t, this.render)}\n`;
        mid = false;
      }
      if (change.plan) {
        chunk += `${mid ? '\n' : ''}${renderPlan(change.plan, this.render).join('\n')}\n`;
        mid = false;
      }
      if (chunk !== '') this.out.write(chunk);
      this.midLine = mid;
    }
  }

  /** Redraws the live region from `view` (`region` mode; null removes it). */
  refresh(view: LiveView | null): void {
    if (this.mode === 'region') this.setLive(view ? renderLive(view, this.render) : []);
  }

  /** Shows the input prompt under the output (`region` mode). */
  showPrompt(): void {
    if (!this.rl) return;
    this.promptShown = true;
    this.redrawPrompt();
  }

  /**
   * The user pressed Enter: readline left the typed line on screen under the live region. It is erased and
   * `echo` (the line as the transcript shows it) printed instead, above the live region.
   */
  entered(typed: string, echo: string | null): void {
    if (this.mode !== 'region' || !this.rl) return;
    const columns = this.columns();
    const up = this.liveLines.length + rowsOf(`${this.rl.getPrompt()}${typed}`, columns);
    this.promptShown = false;
    this.out.write(`${ESC}${up}A\r${ESC}J${echo === null ? '' : `${echo}\n`}${this.liveBlock()}`);
  }

  private setLive(lines: string[]): void {
    if (lines.length === 0 && this.liveLines.length === 0) return;
    const erase = this.eraseSequence();
    this.liveLines = lines;
    this.out.write(`${erase}${this.liveBlock()}`);
    this.redrawPrompt();
  }

  /** Moves to the top of the live region (above the prompt) and clears everything below. */
  private eraseSequence(): string {
    let up = this.liveLines.length;
    if (this.promptShown && this.rl) up += this.rl.getCursorPos().rows;
    return `${up > 0 ? `${ESC}${up}A` : ''}\r${ESC}J`;
  }

  private liveBlock(): string {
    return this.liveLines.length > 0 ? `${this.liveLines.join('\n')}\n` : '';
  }

  private redrawPrompt(): void {
    if (!this.rl || !this.promptShown) return;
    // readline redraws its line relative to where it last left the cursor (`prevRows`); the erase above
    // already took the cursor to a fresh line, so tell it the prompt starts here.
    const internals = this.rl as unknown as { prevRows?: number };
    if (typeof internals.prevRows === 'number') internals.prevRows = 0;
    this.rl.prompt(true);
  }

  /** The terminal's width; a terminal that reports none (0, e.g. a pseudo-terminal without a size) counts as the render width. */
  private columns(): number {
    return this.out.columns || this.render.columns;
  }
}
