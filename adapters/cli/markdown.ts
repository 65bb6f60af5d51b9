/**
 * Final replies as Markdown in a terminal (docs/message-model.md §5.3, CLI column: "visible (rich rendering)"):
 * bold, italics, code spans and blocks, lists, quotes, headings and tables styled with ANSI colours, through
 * marked (the parser) and marked-terminal (the terminal renderer). Pure: the colour level and width come in.
 *
 * Terminal safety: the text given here is already cleaned of control sequences (render.ts `clean`), links are
 * written as `text (url)` (never an OSC 8 hyperlink, whose target the model would choose), and whatever the
 * renderer returns passes {@link keepOnlyStyling}, which leaves SGR colour/style sequences and nothing else — so
 * neither the model's text nor a renderer bug can move the cursor, retitle the terminal or set the clipboard.
 */
import type { ChalkInstance } from 'chalk';
import { Marked, type Tokens } from 'marked';
import { markedTerminal } from 'marked-terminal';

/** Widest rule or table, in columns. */
const MAX_WIDTH = 100;

const parsers = new Map<string, Marked>();

/** A marked instance styled with `style`, for `width` columns (cached per colour level and width). */
function parserFor(style: ChalkInstance, width: number): Marked {
  const key = `${style.level}:${width}`;
  const cached = parsers.get(key);
  if (cached) return cached;
  const marked = new Marked({ gfm: true, breaks: false, async: false });
  marked.use(
    markedTerminal({
      code: style.yellow,
      blockquote: style.gray.italic,
      html: style.gray,
      heading: style.green.bold,
      firstHeading: style.magenta.bold,
      hr: style.dim,
      listitem: (s) => s,
      table: (s) => s,
      paragraph: (s) => s,
      strong: style.bold,
      em: style.italic,
      codespan: style.yellow,
      del: style.dim.strikethrough,
      link: style.blue,
      href: style.blue.underline,
      text: (s) => s,
      unescape: true,
      emoji: false,
      width,
      showSectionPrefix: false,
      reflowText: false,
      tab: 2,
    }),
    {
      renderer: {
        // Code blocks in the code colour, indented: marked-terminal's syntax highlighting follows the process's
        // own colour detection, not the client's colour level.
        code(token: Tokens.Code) {
          const lines = token.text.replace(/\n+$/, '').split('\n');
          return `${lines.map((l) => `  ${style.yellow(l)}`).join('\n')}\n\n`;
        },
        // Plain `text (url)`: marked-terminal would write an OSC 8 hyperlink on terminals that support them.
        link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Link) {
          const text = this.parser.parseInline(token.tokens);
          const href = style.blue.underline(token.href);
          return text === '' || text === token.href ? href : `${style.blue(text)} (${href})`;
        },
      },
    },
  );
  parsers.set(key, marked);
  return marked;
}

/**
 * `markdown` rendered for a terminal `columns` wide, without trailing blank lines. Falls back to the text as
 * written when the renderer fails.
 */
export function renderMarkdown(markdown: string, style: ChalkInstance, columns: number): string {
  const width = Math.max(20, Math.min(columns, MAX_WIDTH));
  let out: string;
  try {
    out = parserFor(style, width).parse(markdown, { async: false });
  } catch {
    out = markdown;
  }
  return keepOnlyStyling(out)
    .replace(/[ \t]+$/gm, '')
    .replace(/^\n+|\n+$/g, '');
}

/* eslint-disable no-control-regex -- matching control characters is the point */
/** An SGR sequence (colours, bold, italics, underline): the only escape sequence the renderer may emit. */
const SGR = /^\u001B\[[0-9;]*m$/;
/**
 * What {@link keepOnlyStyling} looks at: SGR, other CSI sequences, OSC/DCS/SOS/PM/APC strings (7- and 8-bit),
 * any other escape, and every C0/C1 control but tab and newline.
 */
const SEQUENCE =
  /\u001B\[[0-?]*[ -/]*[@-~]|(?:\u001B[\]PX^_]|[\u0090\u0098\u009D\u009E\u009F])[^\u0007\u001B\u009C]*(?:\u0007|\u001B\\|\u009C)?|[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
/* eslint-enable no-control-regex */

/**
 * `s` with every SGR sequence kept and every other control sequence or control character removed (carriage
 * returns become newlines first: marked-terminal marks hard line breaks with them).
 */
export function keepOnlyStyling(s: string): string {
  return s.replace(/\r\n?/g, '\n').replace(SEQUENCE, (m) => (SGR.test(m) ? m : ''));
}
