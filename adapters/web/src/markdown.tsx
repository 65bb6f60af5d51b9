/**
 * Replies as Markdown, made safe: `marked` turns the text into HTML, DOMPurify keeps only inert formatting (no
 * script, no event handler attributes, no `style`, no forms or frames, no images — a model's image link could
 * carry data out in its URL, so images become plain links — and only `http:`, `https:` and `mailto:` links, which
 * open in a new tab without a referrer), and code blocks are highlighted by highlight.js with a copy button. The
 * page's Content-Security-Policy (api/routes/web.ts) is the second wall: even markup that slipped through could run
 * no inline script and load nothing from elsewhere.
 */
import DOMPurify from 'dompurify';
import type { LanguageFn } from 'highlight.js';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdownLang from 'highlight.js/lib/languages/markdown';
import plaintext from 'highlight.js/lib/languages/plaintext';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked, type Tokens } from 'marked';
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';

for (const [name, lang] of Object.entries({
  bash,
  c,
  cpp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  markdown: markdownLang,
  plaintext,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
}))
  hljs.registerLanguage(name, lang as LanguageFn);

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch,
  );

const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    // An image is never loaded: it is a link to its address, which the person may open.
    image({ href, text }: Tokens.Image): string {
      const label = escapeHtml(text || href);
      return `<a href="${escapeHtml(href)}">🖼 ${label}</a>`;
    },
  },
});

const FORBID_TAGS = [
  'style',
  'img',
  'svg',
  'math',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'option',
  'iframe',
  'frame',
  'object',
  'embed',
  'video',
  'audio',
  'source',
  'picture',
  'link',
  'meta',
  'base',
];

DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
  // Classes only name a code block's language (for the highlighter); ids never.
  if (data.attrName === 'class') data.keepAttr = /^language-[\w+-]+$/.test(data.attrValue);
  if (data.attrName === 'id' || data.attrName === 'name') data.keepAttr = false;
});
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    if (node.hasAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer nofollow');
    }
  }
});

/** Markdown text as sanitised HTML (a string for `dangerouslySetInnerHTML`). */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false });
  return DOMPurify.sanitize(html, {
    FORBID_TAGS,
    FORBID_ATTR: ['style', 'srcset', 'formaction', 'xlink:href', 'action'],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  });
}

/** Highlights the code blocks under `root` and gives each a copy button (idempotent). */
function decorate(root: HTMLElement): void {
  for (const code of root.querySelectorAll<HTMLElement>('pre > code')) {
    if (code.dataset.decorated === '1') continue;
    code.dataset.decorated = '1';
    const lang = /language-([\w+-]+)/.exec(code.className)?.[1];
    if (lang && hljs.getLanguage(lang)) {
      code.innerHTML = hljs.highlight(code.textContent ?? '', { language: lang }).value;
      code.classList.add('hljs');
    } else if ((code.textContent ?? '').length < 20_000) {
      const auto = hljs.highlightAuto(code.textContent ?? '');
      if (auto.relevance > 5) code.innerHTML = auto.value;
      code.classList.add('hljs');
    }
    const pre = code.parentElement as HTMLElement;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy code');
    button.addEventListener(
      'click',
      () => void copyText((code.textContent ?? '').replace(/\n$/, ''), button),
    );
    pre.insertBefore(button, code);
  }
}

/** Copies `text`; the button says whether it worked. */
export async function copyText(text: string, button: HTMLElement): Promise<void> {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    // No clipboard API (a page served over plain HTTP to another host): select and copy the old way.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    ok = document.execCommand('copy');
    area.remove();
  }
  button.textContent = ok ? 'Copied ✓' : 'Copy failed';
  setTimeout(() => (button.textContent = 'Copy'), 1500);
}

/** A Markdown block. `streaming`: the text is still growing (no copy buttons until it is whole). */
export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (ref.current && !streaming) decorate(ref.current);
  }, [html, streaming]);
  return <div class="markdown" ref={ref} dangerouslySetInnerHTML={{ __html: html }} />;
}
