/**
 * Inline reasoning in streamed content: models served without a reasoning parser (Qwen3, DeepSeek-R1 and QwQ
 * on Ollama, vLLM or LM Studio) put their reasoning into the answer text as `<think>…</think>`. This splits a
 * stream of text deltas into answer text and reasoning, as the deltas arrive.
 *
 * Rules: text between `<think>` and `</think>` is reasoning, also when a tag is split across deltas; a
 * `<think>` that is never closed makes the rest of the stream reasoning; a `</think>` without any opening tag
 * (chat templates that put the opening tag into the prompt) makes everything before it reasoning — text
 * already handed out as answer deltas is then moved over in the totals. Whitespace right after a closing tag
 * is dropped. Pure; no I/O.
 */

const OPEN = '<think>';
const CLOSE = '</think>';

/** What one call hands out: the answer text and the reasoning text of this delta (either may be empty). */
export interface SplitDelta {
  text: string;
  reasoning: string;
}

/** The length of the longest suffix of `s` that is a proper prefix of `tag` (a tag that may continue). */
function partialTagLength(s: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, s.length); n > 0; n--) {
    if (tag.startsWith(s.slice(s.length - n))) return n;
  }
  return 0;
}

export class InlineReasoningSplitter {
  private held = '';
  private inside = false;
  private sawOpen = false;
  private afterClose = false;
  /** All answer text so far. */
  text = '';
  /** All reasoning so far. */
  reasoning = '';

  /** Feeds one delta; returns the answer text and reasoning that can be handed out now. */
  push(delta: string): SplitDelta {
    let s = this.held + delta;
    this.held = '';
    const out: SplitDelta = { text: '', reasoning: '' };
    while (s !== '') {
      if (this.afterClose) {
        const trimmed = s.replace(/^\s+/, '');
        if (trimmed === '') return this.record(out);
        this.afterClose = false;
        s = trimmed;
      }
      if (this.inside) {
        const at = s.indexOf(CLOSE);
        if (at >= 0) {
          out.reasoning += s.slice(0, at);
          s = s.slice(at + CLOSE.length);
          this.inside = false;
          this.afterClose = true;
          continue;
        }
        const keep = partialTagLength(s, CLOSE);
        out.reasoning += s.slice(0, s.length - keep);
        this.held = s.slice(s.length - keep);
        break;
      }
      const open = s.indexOf(OPEN);
      const close = this.sawOpen ? -1 : s.indexOf(CLOSE);
      if (close >= 0 && (open < 0 || close < open)) {
        // A closing tag without an opening one: everything so far was reasoning.
        this.reasoning += this.text + out.text + s.slice(0, close);
        this.text = '';
        out.text = '';
        this.sawOpen = true;
        this.afterClose = true;
        s = s.slice(close + CLOSE.length);
        continue;
      }
      if (open >= 0) {
        out.text += s.slice(0, open);
        s = s.slice(open + OPEN.length);
        this.inside = true;
        this.sawOpen = true;
        continue;
      }
      const keep = Math.max(partialTagLength(s, OPEN), this.sawOpen ? 0 : partialTagLength(s, CLOSE));
      out.text += s.slice(0, s.length - keep);
      this.held = s.slice(s.length - keep);
      break;
    }
    return this.record(out);
  }

  /** Ends the stream: held-back characters go where they belong (reasoning inside an unclosed tag). */
  end(): SplitDelta {
    const rest = this.held;
    this.held = '';
    const out: SplitDelta = this.inside
      ? { text: '', reasoning: rest }
      : { text: this.afterClose ? rest.replace(/^\s+/, '') : rest, reasoning: '' };
    return this.record(out);
  }

  private record(out: SplitDelta): SplitDelta {
    this.text += out.text;
    this.reasoning += out.reasoning;
    return out;
  }
}
