// Inline <think> reasoning split off a stream of text deltas (activities/llm/think.ts).
import { describe, expect, it } from 'vitest';
import { InlineReasoningSplitter } from './think.ts';

function run(deltas: string[]): { text: string; reasoning: string; handedOut: string } {
  const s = new InlineReasoningSplitter();
  let handedOut = '';
  for (const d of deltas) handedOut += s.push(d).text;
  handedOut += s.end().text;
  return { text: s.text, reasoning: s.reasoning, handedOut };
}

describe('InlineReasoningSplitter', () => {
  it('passes text without tags through unchanged, also a lone "<" or "</"', () => {
    expect(run(['Hello ', 'world', ' 1 < 2 and </b>'])).toEqual({
      text: 'Hello world 1 < 2 and </b>',
      reasoning: '',
      handedOut: 'Hello world 1 < 2 and </b>',
    });
  });

  it('moves <think>…</think> into reasoning and drops the whitespace after the closing tag', () => {
    expect(run(['<think>private plan</think>\n\nHere is the answer.'])).toMatchObject({
      text: 'Here is the answer.',
      reasoning: 'private plan',
    });
  });

  it('handles tags split across deltas at every position', () => {
    const whole = '<think>plan A</think>Answer.';
    for (let i = 1; i < whole.length; i++) {
      for (let j = i + 1; j < whole.length; j++) {
        const r = run([whole.slice(0, i), whole.slice(i, j), whole.slice(j)]);
        expect(r.text, `cut at ${i}, ${j}`).toBe('Answer.');
        expect(r.reasoning).toBe('plan A');
        expect(r.handedOut).toBe('Answer.');
      }
    }
  });

  it('treats an unclosed <think> as reasoning to the end of the stream', () => {
    expect(run(['Sure. <think>still thin', 'king </thi'])).toMatchObject({
      text: 'Sure. ',
      reasoning: 'still thinking </thi',
    });
  });

  it('a closing tag without an opening one makes everything before it reasoning', () => {
    expect(run(['planning quietly', '</think>\nThe answer.'])).toMatchObject({
      text: 'The answer.',
      reasoning: 'planning quietly',
    });
  });
});
