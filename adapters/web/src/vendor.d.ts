// highlight.js ships no declarations for its language modules. Typed loosely here, without importing
// highlight.js's own declarations (they pull the DOM library into every program that sees this file);
// adapters/web/src/markdown.tsx types them as highlight.js LanguageFn where it registers them.
declare module 'highlight.js/lib/languages/*' {
  const language: (hljs?: unknown) => unknown;
  export default language;
}
