/**
 * Types of the part of marked-terminal 7 (https://github.com/mikaelbr/marked-terminal) the terminal client uses:
 * `markedTerminal(options)` returns a marked extension. The package ships no types of its own.
 */
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';

  /** A style: text in, styled text out (a chalk function). */
  type Style = (text: string) => string;

  export interface TerminalRendererOptions {
    code?: Style;
    blockquote?: Style;
    html?: Style;
    heading?: Style;
    firstHeading?: Style;
    hr?: Style;
    listitem?: Style;
    table?: Style;
    paragraph?: Style;
    strong?: Style;
    em?: Style;
    codespan?: Style;
    del?: Style;
    link?: Style;
    href?: Style;
    text?: Style;
    /** Decode HTML entities (&amp; &lt; &gt; &quot; &#39;). */
    unescape?: boolean;
    /** Replace `:name:` shortcodes with emoji. */
    emoji?: boolean;
    /** Columns for rules, tables and reflowed text. */
    width?: number;
    /** Prefix headings with `#`s. */
    showSectionPrefix?: boolean;
    reflowText?: boolean;
    /** Indentation of code blocks and quotes, in spaces. */
    tab?: number;
    tableOptions?: Record<string, unknown>;
  }

  export function markedTerminal(
    options?: TerminalRendererOptions,
    highlightOptions?: Record<string, unknown>,
  ): MarkedExtension;
}
