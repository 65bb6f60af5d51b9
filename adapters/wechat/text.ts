/**
 * What WeChat shows of a reply: plain text (docs/message-model.md §5.3, WeChat column: "plain text in chunks"),
 * cut into chunks the customer-service message API accepts. Pure.
 */
import removeMarkdown from 'remove-markdown';

/**
 * Longest `text.content` the customer-service message API takes, in UTF-8 bytes. WeChat's API reference
 * (developers.weixin.qq.com/doc/offiaccount/Message_Management/Service_Center_messages.html) states no number;
 * longer content is refused with errcode 45002 "content size out of limit", and WeChat's developer community
 * gives the limit as 2048 bytes (developers.weixin.qq.com/community/develop/doc/00084e2936c340b9015a753405b800).
 */
export const WECHAT_MAX_TEXT_BYTES = 2048;

/**
 * Markdown to plain text: emphasis, headings, inline code and code fences lose their markers; list items keep
 * their leaders ("- ", "1. ") and tables their pipes, which read fine as plain text; a link keeps its address
 * after its text ("docs (https://…)") so nothing the user needs is lost.
 */
export function toPlainText(markdown: string): string {
  // remove-markdown drops link targets; keep them as "text (url)" (an autolink or a bare URL stays as is).
  const withUrls = markdown.replace(
    /(?<!!)\[([^\]\n]{1,256})\]\((https?:\/\/[^\s()]{1,1024})\)/g,
    (_m, label: string, url: string) => (label === url ? url : `${label} (${url})`),
  );
  const plain = removeMarkdown(withUrls, {
    gfm: true,
    useImgAltText: true,
    stripListLeaders: false,
  });
  return plain.replace(/\n{3,}/g, '\n\n').trim();
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Splits `text` into chunks of at most `maxBytes` UTF-8 bytes, in order, never inside a character or a grapheme
 * cluster (an emoji with modifiers stays whole unless the cluster alone is longer than a chunk). Prefers to cut
 * after a blank line, then after a line break, then after a space or a CJK sentence mark (。！？；，、), else
 * between graphemes. Chunks are trimmed of white space at the cut; none is empty.
 */
export function splitUtf8(text: string, maxBytes: number = WECHAT_MAX_TEXT_BYTES): string[] {
  if (maxBytes < 4) throw new RangeError('maxBytes must leave room for one character (4 bytes)');
  const chunks: string[] = [];
  let rest = text.trim();
  while (rest !== '') {
    if (Buffer.byteLength(rest, 'utf8') <= maxBytes) {
      chunks.push(rest);
      break;
    }
    const cut = cutIndex(rest, maxBytes);
    const head = rest.slice(0, cut).trimEnd();
    if (head !== '') chunks.push(head);
    rest = rest.slice(cut).trimStart();
  }
  return chunks;
}

/** Where to cut `s` (longer than `maxBytes`) so the head fits: a UTF-16 index > 0. */
function cutIndex(s: string, maxBytes: number): number {
  // The longest prefix of whole graphemes within the budget (whole code points when one grapheme is too long).
  let fit = 0;
  let bytes = 0;
  for (const { segment, index } of segmenter.segment(s)) {
    const b = Buffer.byteLength(segment, 'utf8');
    if (bytes + b > maxBytes) {
      if (fit === 0) fit = index + codePointsWithin(segment, maxBytes);
      break;
    }
    bytes += b;
    fit = index + segment.length;
  }
  const head = s.slice(0, fit);
  const floor = Math.floor(fit / 2);
  for (const re of [/\n[ \t]*\n/g, /\n/g, /[ \t。！？；，、]/g]) {
    let best = -1;
    for (const m of head.matchAll(re)) best = m.index + m[0].length;
    if (best > floor) return best;
  }
  return fit;
}

/** UTF-16 length of the longest prefix of whole code points of `s` within `maxBytes` (at least one code point). */
function codePointsWithin(s: string, maxBytes: number): number {
  let len = 0;
  let bytes = 0;
  for (const cp of s) {
    const b = Buffer.byteLength(cp, 'utf8');
    if (bytes + b > maxBytes && len > 0) break;
    bytes += b;
    len += cp.length;
  }
  return len;
}
