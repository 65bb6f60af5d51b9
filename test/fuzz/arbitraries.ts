/**
 * fast-check arbitraries for bad input: hostile strings (NUL, lone surrogates, bidi
 * controls, zero-width characters, emoji ZWJ sequences, combining marks, CJK, line breaks, megabyte strings,
 * strings at and one past the 64 KiB UTF-8 content limit), hostile ids (path, percent-encoding and SQL
 * characters, 128/129 characters, empty), random JSON values, request bodies around the real schemas, and
 * random message histories for the pure domain functions.
 *
 * Sizes are in bytes of UTF-8 unless a name says otherwise; a JS string's `length` counts UTF-16 code units.
 */
import fc from 'fast-check';
import { API_LIMITS } from '../../api/schemas.ts';
import {
  MESSAGE_TYPES,
  ROLES,
  SENDERS,
  STATUSES,
  type Message,
  type MessageMetadata,
} from '../../domain/message.ts';
import { ID_PATTERN, LIMITS, MESSAGE_ID_PATTERN } from '../../domain/inbound.ts';

// ---------------------------------------------------------------------------------------------------------
// Strings

/** Single characters and short sequences that break naive text handling. Names are for test output. */
export const HOSTILE_PIECES = {
  nul: '\u0000',
  loneHigh: '\uD800',
  loneLow: '\uDC00',
  reversedPair: '\uDC00\uD83D',
  rlm: '\u200F',
  lrm: '\u200E',
  rlo: '\u202E',
  lro: '\u202D',
  isolates: '\u2066\u2067\u2068\u2069',
  arabicMark: '\u061C',
  zwsp: '\u200B',
  zwnj: '\u200C',
  zwj: '\u200D',
  bom: '\uFEFF',
  skinTone: '👍🏽',
  family: '👨‍👩‍👧‍👦',
  rainbowFlag: '🏳️‍🌈',
  technologist: '👩🏿‍💻',
  regionalFlag: '🇯🇵',
  combining: 'e\u0301\u0327\u0308',
  zalgo:
    'Z\u0351\u036B\u0343\u036A\u0302\u036B\u033D\u034F\u0334\u0319\u0324\u031E\u0349\u035A\u032F\u031E\u0320\u034D',
  cjk: '漢字かなカナ한글',
  fullWidth: '！＂＃ＡＢＣ\u3000',
  crlf: '\r\n',
  cr: '\r',
  lineSeparators: '\u2028\u2029\u0085',
  tab: '\t',
  ansi: '\u001b[31mred\u001b[0m',
  controls: '\u0001\u0007\u0008\u000b\u000c\u001f\u007f',
  c1: '\u0080\u009b\u009f',
  nonCharacters: '\uFFFE\uFFFF\u{10FFFF}',
  privateUse: '\uE000\u{F0000}',
  replacement: '\uFFFD',
  astral: '𝕳𝖊𝖑𝖑𝖔 𓀀 🀄',
  quoteJson: '"},{"x":"',
  backslash: '\\\\u0000\\',
  html: '<script>alert(1)</script>',
  sql: "'; DROP TABLE messages; --",
  template: '${process.exit(1)}{{constructor}}%s%n',
  nbsp: '\u00A0\u2007\u202F',
} as const;

export type HostilePiece = keyof typeof HOSTILE_PIECES;

/** Any UTF-16 code unit, lone surrogates included (fc's own units never produce lone surrogates). */
export const utf16Unit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

const pieceArb = fc.constantFrom(...Object.values(HOSTILE_PIECES));

/** Short hostile text: hostile pieces mixed with random code units, graphemes and ASCII. */
export const hostileText = (maxPieces = 12): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        { weight: 4, arbitrary: pieceArb },
        { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
        { weight: 2, arbitrary: fc.string({ unit: utf16Unit, maxLength: 4 }) },
        { weight: 2, arbitrary: fc.string({ maxLength: 8 }) },
      ),
      { maxLength: maxPieces },
    )
    .map((parts) => parts.join(''));

/** Hostile text without NUL and lone surrogates: what Postgres `text`/`jsonb` can store unchanged. */
export const storableText = (maxPieces = 12): fc.Arbitrary<string> =>
  hostileText(maxPieces).map((s) => toWellFormed(s).replaceAll('\u0000', ''));

/** True when `s` has a UTF-16 surrogate that is not part of a pair. */
export function hasLoneSurrogate(s: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/** `s` with each lone surrogate replaced by U+FFFD (what a UTF-8 encoder does; String#toWellFormed is ES2024). */
export function toWellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** Bytes of `s` in UTF-8 (a lone surrogate counts 3, as its U+FFFD replacement). */
export const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Characters of each UTF-8 width, to build strings of an exact byte size. */
const WIDE: Record<1 | 2 | 3 | 4, readonly string[]> = {
  1: ['a', 'Z', '~', ' ', '\n'],
  2: ['é', 'ß', 'Ж', 'ה', '\u0301'],
  3: ['漢', 'カ', '\u200F', '\u202E', '\uFEFF', '€'],
  4: ['😀', '👍', '𝕳', '🀄'],
};

/**
 * A string of exactly `bytes` bytes of UTF-8 mixing 1- to 4-byte characters (so `length` differs from the byte
 * size), never only whitespace.
 */
export const exactUtf8 = (bytes: number): fc.Arbitrary<string> =>
  fc
    .record({
      widths: fc.array(fc.constantFrom<1 | 2 | 3 | 4>(1, 2, 3, 4), { minLength: 1, maxLength: 4 }),
      pick: fc.nat(),
    })
    .map(({ widths, pick }) => {
      const parts: string[] = ['x'];
      let size = 1;
      let i = 0;
      while (size < bytes) {
        const width = widths[i % widths.length] ?? 1;
        const options = WIDE[bytes - size >= width ? width : 1];
        const char = options[(pick + i) % options.length] ?? 'a';
        parts.push(char);
        size += utf8Bytes(char);
        i += 1;
      }
      return parts.join('');
    });

/** Around the content limit: exactly at it, one byte past it, and a little below. */
export const contentAtLimit = fc.oneof(
  exactUtf8(LIMITS.maxContentBytes),
  exactUtf8(LIMITS.maxContentBytes + 1),
  exactUtf8(LIMITS.maxContentBytes - 3),
);

/** Large strings: around 256 KiB (the body limit) and 1 MB. */
export const hugeText = fc.oneof(
  fc
    .constantFrom(API_LIMITS.bodyBytes - 64, API_LIMITS.bodyBytes + 1, 1024 * 1024)
    .chain((n) => exactUtf8(n)),
  fc.constant('x'.repeat(1024 * 1024)),
);

// ---------------------------------------------------------------------------------------------------------
// Ids

/** Session ids that are valid (ID_PATTERN) but unusual: dots, separators, at 128 characters. */
export const oddValidIds = [
  '...',
  '-',
  '_',
  ':',
  '@',
  '.hidden',
  'a..b',
  'a:b',
  'a_b',
  'a@b',
  'CON',
  'NUL',
  'x'.repeat(LIMITS.maxIdLength),
  '0',
  '-1',
  '1e9',
] as const;

/** Ids that break ID_PATTERN: path, percent-encoding, SQL and unicode characters, 129 characters, empty. */
export const invalidIds = [
  '',
  '.',
  '..',
  '../etc/passwd',
  '..%2f..%2fetc',
  '%2e%2e',
  '%2E%2E%2F',
  'a/b',
  'a\\b',
  "'; DROP TABLE sessions; --",
  'a%00b',
  'a\u0000b',
  'x'.repeat(LIMITS.maxIdLength + 1),
  'émoji😀',
  '\u202Eabc',
  'a b',
  'a?b=c',
  'a#frag',
  'a;b',
  'a*',
  '%',
  '%zz',
] as const;

/** Any id: the odd and invalid lists, random strings of the allowed alphabet, and hostile text. */
export const hostileId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...oddValidIds, ...invalidIds),
  fc.stringMatching(/^[A-Za-z0-9_.:@-]{1,129}$/),
  hostileText(4),
);

/** True when `id` is one the API must accept as a session id. */
export const isValidId = (id: string): boolean => ID_PATTERN.test(id);

/** True when `id` is one the API must accept as a client-chosen message id (no `:`, reserved for derived ids). */
export const isValidMessageId = (id: string): boolean => MESSAGE_ID_PATTERN.test(id);

/** Valid session ids (fast-check cannot generate from the pattern's lookahead, so filter). */
export const validSessionId: fc.Arbitrary<string> = fc
  .stringMatching(/^[A-Za-z0-9_.:@-]{1,128}$/)
  .filter((id) => ID_PATTERN.test(id));

// ---------------------------------------------------------------------------------------------------------
// JSON

/** Any JSON value (objects, arrays, strings with hostile text, numbers, booleans, null), nested. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(0, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER + 2),
    hostileText(3),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(hostileText(2), fc.constantFrom('__proto__', 'constructor', 'content', 'id')),
      tie('value'),
      {
        maxKeys: 4,
      },
    ),
  ),
})).value;

// ---------------------------------------------------------------------------------------------------------
// Request bodies

/** Attachment-shaped values: valid ones and every way to get one wrong. */
export const attachmentArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        name: fc.oneof(
          storableText(4),
          fc.constantFrom('a.csv', 'b.png', 'x'.repeat(255), 'x'.repeat(256), ''),
        ),
        content_type: fc.oneof(
          fc.constantFrom('text/plain', 'image/png', '', 'x'.repeat(256)),
          storableText(2),
        ),
        size: fc.oneof(
          fc.nat(),
          fc.constantFrom(-1, 1.5, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2),
        ),
        url: fc.constantFrom(
          'https://example.com/a.png',
          'http://[::1]/x',
          'not a url',
          '',
          'javascript:alert(1)',
          'file:///etc/passwd',
          `https://example.com/${'a'.repeat(2100)}`,
        ),
      },
      { requiredKeys: ['name'] },
    ),
  },
  { weight: 1, arbitrary: fc.record({ name: fc.constant('x.txt'), extra: anyJson }) },
  { weight: 1, arbitrary: anyJson },
);

/** Values for `wait`: in range, at the bounds, out of range, and of the wrong type. */
export const waitArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(0, API_LIMITS.waitMaxS + 1, -1, 1.5, '5', null, true, 1e9, -0),
  fc.integer({ min: 20, max: 30 }),
);

/** Valid `POST …/messages` bodies with hostile (but storable or lone-surrogate) text, to exercise storage. */
export const validPostBodyArb: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    content: hostileText(8).map((s) => `${s}.`),
    id: fc.oneof(fc.uuid(), fc.stringMatching(/^[A-Za-z0-9_.@-]{8,128}$/)),
    sender: hostileText(3).map((s) => `${s}s`.slice(0, LIMITS.maxSenderLength)),
    attachments: fc.array(
      fc.record(
        {
          name: storableText(2).map((s) => `${s}.txt`.slice(-255)),
          content_type: fc.constantFrom('text/plain', 'image/png'),
          size: fc.nat(),
          url: fc.constantFrom('https://example.com/a.png', 'http://[::1]/x'),
        },
        { requiredKeys: ['name'] },
      ),
      { maxLength: 3 },
    ),
    wait: fc.constantFrom(0, 30),
  },
  { requiredKeys: ['content'] },
);

/**
 * Bodies for `POST …/messages`: the real schema with hostile strings, with fields missing, extra or of the
 * wrong type, content at and past the limits, and arbitrary JSON values.
 */
export const postBodyArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: validPostBodyArb },
  {
    weight: 6,
    arbitrary: fc.record(
      {
        content: fc.oneof(
          { weight: 6, arbitrary: hostileText() },
          { weight: 1, arbitrary: contentAtLimit },
          { weight: 1, arbitrary: fc.constantFrom('', ' ', '\u3000\n\t', '\u200B') },
        ),
        id: fc.oneof(hostileId, fc.uuid()),
        sender: fc.oneof(
          hostileText(3),
          fc.constantFrom(
            '',
            'x'.repeat(LIMITS.maxSenderLength),
            'x'.repeat(LIMITS.maxSenderLength + 1),
            '😀'.repeat(64),
          ),
        ),
        attachments: fc.oneof(
          fc.array(attachmentArb, { maxLength: 3 }),
          fc.array(fc.constant({ name: 'f.txt' }), {
            minLength: LIMITS.maxAttachments,
            maxLength: LIMITS.maxAttachments + 1,
          }),
        ),
        wait: waitArb,
      },
      { requiredKeys: ['content'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.record({ content: hostileText(4) }),
        fc.dictionary(hostileText(2), anyJson, { minKeys: 1, maxKeys: 2 }),
      )
      .map(([a, b]) => ({ ...b, ...a })),
  },
  { weight: 1, arbitrary: fc.record({ content: anyJson }) },
  { weight: 1, arbitrary: anyJson },
  { weight: 1, arbitrary: hugeText.map((content) => ({ content })) },
);

/** Bodies for `PATCH /v1/sessions/{id}`. */
export const patchBodyArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.oneof(
      fc.record({ title: hostileText(4).map((s) => `${s}t`.slice(-200)) }),
      fc.record({ mode: fc.constantFrom('interrupt', 'queue') }),
    ),
  },
  {
    weight: 5,
    arbitrary: fc.record(
      {
        title: fc.oneof(
          hostileText(4),
          fc.constantFrom(
            '',
            '   ',
            'x'.repeat(200),
            'x'.repeat(201),
            ` ${'y'.repeat(200)} `,
            '😀'.repeat(100),
            '😀'.repeat(101),
          ),
          anyJson,
        ),
        mode: fc.oneof(fc.constantFrom('interrupt', 'queue', 'QUEUE', '', 'stop'), anyJson),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: anyJson },
  { weight: 1, arbitrary: fc.dictionary(hostileText(2), anyJson, { maxKeys: 3 }) },
);

/** Query-string values: integers in and out of range, signs, exponents, hex, unicode, empty, repeated. */
export const queryValueArb: fc.Arbitrary<string> = fc.oneof(
  fc.nat().map(String),
  fc.constantFrom(
    '0',
    '1',
    '-1',
    '+1',
    ' 1',
    '1 ',
    '1.0',
    '1e3',
    '0x10',
    '',
    '9007199254740991',
    '9007199254740992',
    '99999999999999999',
    '10000',
    '10001',
    '100',
    '101',
    'null',
    'NaN',
    'Infinity',
    '١٢',
    '１２',
  ),
  hostileText(2),
);

// ---------------------------------------------------------------------------------------------------------
// Raw request bodies

/** Bytes that are not valid UTF-8: stray continuation bytes, overlong forms, encoded surrogates, 0xFF. */
export const invalidUtf8 = fc.constantFrom(
  Buffer.from([0xff]),
  Buffer.from([0xfe, 0xff]),
  Buffer.from([0x80]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xe0, 0x80, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  Buffer.from([0xe2, 0x82]),
);

/** A raw body and the content type it is sent with (or none). */
export interface RawBody {
  label: string;
  body: Buffer;
  contentType: string | null;
  /** Extra headers (e.g. a bogus Content-Encoding). */
  headers?: Record<string, string>;
}

const contentTypes = fc.constantFrom<string | null>(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset="utf-8"',
  'application/problem+json',
  'application/merge-patch+json',
  'APPLICATION/JSON',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/json;;;',
  '*/*',
  '',
  null,
);

/** Raw bodies: invalid UTF-8 inside JSON, truncated JSON, BOMs, wrong content types, bodies past 256 KiB. */
export const rawBodyArb: fc.Arbitrary<RawBody> = fc.oneof(
  fc.tuple(hostileText(3), invalidUtf8, contentTypes).map(([text, bad, contentType]) => ({
    label: 'invalid UTF-8 inside a JSON string',
    body: Buffer.concat([
      Buffer.from(`{"content":${JSON.stringify(text).slice(0, -1)}`),
      bad,
      Buffer.from('"}'),
    ]),
    contentType,
  })),
  fc.tuple(postBodyArb, fc.nat(), contentTypes).map(([body, cut, contentType]) => {
    const full = Buffer.from(JSON.stringify(body) ?? 'null');
    return { label: 'truncated JSON', body: full.subarray(0, cut % Math.max(1, full.length)), contentType };
  }),
  fc.tuple(hostileText(3), contentTypes).map(([text, contentType]) => ({
    label: 'JSON after a BOM',
    body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ content: text }))]),
    contentType,
  })),
  fc.tuple(hostileText(3), contentTypes).map(([text, contentType]) => ({
    label: 'valid JSON, any content type',
    body: Buffer.from(JSON.stringify({ content: `${text}x` })),
    contentType,
  })),
  fc.constantFrom(API_LIMITS.bodyBytes, API_LIMITS.bodyBytes + 1, 1024 * 1024).map((n) => ({
    label: `a ${n}-byte JSON body`,
    body: Buffer.from(`{"content":"${'x'.repeat(Math.max(0, n - 14))}"}`),
    contentType: 'application/json',
  })),
  fc
    .constantFrom(
      '{"content":"a","content":"b"}',
      '{"__proto__":{"polluted":1},"content":"x"}',
      '{"constructor":{"prototype":{"x":1}},"content":"x"}',
      '{"content":"x","wait":1e400}',
      '{"content":"x","wait":-0}',
      '{"content":"\\ud800"}',
      '{"content":"\\u0000"}',
      '{"content":"x"} trailing',
      '{"content":"x"}{"content":"y"}',
      '['.repeat(5000) + ']'.repeat(5000),
      '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
      '',
      ' ',
      'null',
      '"just a string"',
      '12',
      "{'content':'single quotes'}",
      '{"content":NaN}',
      '{"content":"x",}',
    )
    .map((text) => ({ label: 'odd JSON text', body: Buffer.from(text), contentType: 'application/json' })),
  fc
    .tuple(hostileText(3), fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'bogus'))
    .map(([text, enc]) => ({
      label: `Content-Encoding ${enc}`,
      body: Buffer.from(JSON.stringify({ content: `${text}x` })),
      contentType: 'application/json',
      headers: { 'content-encoding': enc },
    })),
  fc.tuple(hostileText(3)).map(([text]) => ({
    label: 'UTF-16LE JSON declared as UTF-16',
    body: Buffer.from(JSON.stringify({ content: `${text}x` }), 'utf16le'),
    contentType: 'application/json; charset=utf-16',
  })),
);

// ---------------------------------------------------------------------------------------------------------
// Message histories (pure domain functions)

const idPool = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'c1', 'c2', 'r1', '..', "'; --"] as const;
const toolCallIdPool = ['call_0', 'call_1', 'call_2', ''] as const;

const metadataArb: fc.Arbitrary<MessageMetadata | null> = fc.oneof(
  fc.constant(null),
  fc.record(
    {
      tool_call_id: fc.constantFrom(...toolCallIdPool),
      tool_name: fc.oneof(fc.constantFrom('run_shell_command', 'read_file'), hostileText(2)),
      tool_arguments: fc.dictionary(hostileText(2), anyJson, { maxKeys: 3 }),
      tool_result: hostileText(2),
      is_compaction: fc.boolean(),
      is_cronjob: fc.boolean(),
      compacted_through_seq: fc.integer({ min: -2, max: 25 }),
      failure_kind: fc.constantFrom('provider', 'tool', 'context_preparation'),
      attachments: fc.array(fc.record({ name: hostileText(2) }, { requiredKeys: ['name'] }), {
        maxLength: 3,
      }),
      synthetic: fc.boolean(),
      extra: anyJson,
    },
    { requiredKeys: [] },
  ),
);

/** Content for history messages: hostile text, occasionally very large. */
const historyContent = fc.oneof(
  { weight: 20, arbitrary: hostileText(6) },
  { weight: 1, arbitrary: fc.constant('长'.repeat(200_000)) },
);

/**
 * One arbitrary stored message (any combination of the three axes, senders and metadata). Ids, turn ids,
 * parent ids and tool-call ids come from small pools so that turns interleave, results point at calls (or at
 * nothing), and tool-call ids repeat.
 */
export const messageArb: fc.Arbitrary<Message> = fc
  .record({
    id: fc.constantFrom(...idPool),
    parent_id: fc.option(fc.constantFrom(...idPool), { nil: null }),
    chatbot_id: fc.constantFrom('api', 'discord', 'cli', 'system'),
    sender: fc.oneof(
      fc.constantFrom(...Object.values(SENDERS), 'alice', 'run_shell_command'),
      hostileText(2),
    ),
    role: fc.constantFrom(...ROLES),
    type: fc.constantFrom(...MESSAGE_TYPES),
    status: fc.constantFrom(...STATUSES),
    content: historyContent,
    metadata: metadataArb,
    turn_id: fc.option(fc.constantFrom(...idPool), { nil: null, freq: 4 }),
    step: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
    seq: fc.integer({ min: 1, max: 20 }),
    revision: fc.integer({ min: 0, max: 10 }),
  })
  .map((m) => ({
    ...m,
    session_id: 's',
    channel_id: 'c',
    received_at: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  }));

/**
 * A well-formed turn (docs/message-model.md §6.1 trace shape) with random tool-call ids, optional results and a reply, as a
 * function of the turn id (so ids stay deterministic for a seed).
 */
const turnArb: fc.Arbitrary<(t: string) => Message[]> = fc
  .record({
    calls: fc.array(fc.record({ toolCallId: fc.constantFrom(...toolCallIdPool), withResult: fc.boolean() }), {
      maxLength: 3,
    }),
    reply: fc.boolean(),
    thought: fc.boolean(),
    baseSeq: fc.integer({ min: 1, max: 40 }),
    content: hostileText(3),
    compaction: fc.boolean(),
  })
  .map(({ calls, reply, thought, baseSeq, content, compaction }) => (t: string) => {
    let seq = baseSeq;
    const base = {
      session_id: 's',
      chatbot_id: 'api',
      channel_id: 'c',
      revision: 1,
      received_at: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    const out: Message[] = [
      {
        ...base,
        id: t,
        parent_id: null,
        sender: compaction ? SENDERS.system : 'alice',
        role: 'user',
        type: 'text',
        status: 'processed',
        content,
        metadata: compaction ? { is_compaction: true } : null,
        turn_id: t,
        step: null,
        seq: seq++,
      },
    ];
    const common = { ...base, turn_id: t, step: 0, parent_id: t, status: 'responded' as const };
    if (thought)
      out.push({
        ...common,
        id: `${t}:th`,
        sender: SENDERS.agent,
        role: 'assistant',
        type: 'thought',
        content: 'hmm',
        metadata: null,
        seq: seq++,
      });
    calls.forEach((c, i) => {
      const callId = `${t}:call${i}`;
      out.push({
        ...common,
        id: callId,
        sender: SENDERS.agent,
        role: 'tool',
        type: 'tool_call',
        content: 'Calling tool',
        metadata: {
          tool_name: 'run_shell_command',
          tool_arguments: { command: 'ls' },
          tool_call_id: c.toolCallId,
        },
        seq: seq++,
      });
      if (c.withResult)
        out.push({
          ...common,
          id: `${callId}:result`,
          parent_id: callId,
          sender: 'run_shell_command',
          role: 'tool',
          type: 'tool_result',
          content: `out ${i}`,
          metadata: { tool_name: 'run_shell_command', tool_result: 'ok', tool_call_id: c.toolCallId },
          seq: seq++,
        });
    });
    if (reply)
      out.push({
        ...common,
        id: `${t}:reply`,
        step: calls.length > 0 ? 1 : 0,
        sender: SENDERS.agent,
        role: 'assistant',
        type: 'text',
        status: 'delivered',
        content: compaction ? 'summary' : 'done',
        metadata: compaction ? { compacted_through_seq: baseSeq - 1 } : null,
        seq: seq++,
      });
    return out;
  });

/**
 * A history: messages with unique ids (ids are primary keys), duplicate `seq`s allowed. Mixes free-form messages
 * with well-formed turns (trigger, thought, tool calls with results, a reply) so both shapes are covered.
 */
export const historyArb: fc.Arbitrary<Message[]> = fc
  .tuple(fc.array(messageArb, { maxLength: 24 }), fc.array(turnArb, { maxLength: 4 }))
  .map(([free, turns]) => {
    const all = [...turns.flatMap((build, i) => build(`t${i}`)), ...free];
    const seen = new Set<string>();
    const out: Message[] = [];
    for (const m of all) {
      let id = m.id;
      for (let n = 2; seen.has(id); n += 1) id = `${m.id}#${n}`;
      seen.add(id);
      // A compaction prompt opens its own turn (factories: turn_id = id); corrupt prompts are not modelled.
      const turn_id = m.metadata?.is_compaction === true ? id : m.turn_id;
      out.push(id === m.id && turn_id === m.turn_id ? m : { ...m, id, turn_id });
    }
    return out;
  });
