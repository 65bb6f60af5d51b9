// `npm run chat` options: where the API is, which session, which token, who is typing.
import { describe, expect, it } from 'vitest';
import { chatCommand, parseOptions } from './options.ts';

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = parseOptions(argv, env);
  if (!r.ok) throw new Error(r.error);
  return r.options;
};

describe('parseOptions', () => {
  it('makes up a new session id and talks to the local API by default', () => {
    const o = parse([]);
    expect(o.session).toMatch(/^cli-\d{8}-[0-9a-f]{6}$/);
    expect(o.url).toBe('http://127.0.0.1:3000');
    expect(o.token).toBeUndefined();
    expect(o.sender).toBe('you');
    // Made here, so nobody else can hold it: a 404 at start is a new session, never "someone else's".
    expect(o.sessionGenerated).toBe(true);
  });

  it('takes --session and --url, else KESOKU_API_URL, else KESOKU_API_PORT', () => {
    expect(parse(['--session', 'demo', '--url', 'http://h:9/']).url).toBe('http://h:9');
    expect(parse(['--session', 'demo']).session).toBe('demo');
    expect(parse(['--session', 'demo']).sessionGenerated).toBe(false);
    expect(parse([], { KESOKU_API_URL: 'https://k.example' }).url).toBe('https://k.example');
    expect(parse([], { KESOKU_API_PORT: '3311' }).url).toBe('http://127.0.0.1:3311');
  });

  it("sends KESOKU_API_TOKEN, else the admin's or the first token of KESOKU_API_TOKENS, as $USER", () => {
    expect(parse([], { KESOKU_API_TOKEN: 't1', KESOKU_API_TOKENS: 'a,b' }).token).toBe('t1');
    expect(parse([], { KESOKU_API_TOKENS: ' ,a,b' }).token).toBe('a');
    expect(parse([], { KESOKU_API_TOKENS: 'alice:tok-a,admin:tok:x' }).token).toBe('tok:x');
    expect(parse([], { KESOKU_API_TOKENS: 'alice:tok-a,ops:tok-o' }).token).toBe('tok-a');
    expect(parse([], { USER: 'chii' }).sender).toBe('chii');
  });

  it('renders Markdown unless --plain', () => {
    expect(parse([]).plain).toBe(false);
    expect(parse(['--plain']).plain).toBe(true);
  });

  it('rejects unknown options, bad session ids and bad URLs with a message', () => {
    for (const argv of [
      ['--bogus'],
      ['--session', 'no spaces'],
      ['--url', 'ftp://x'],
      ['--timeout', '0'],
      ['extra'],
    ]) {
      const r = parseOptions(argv, {});
      expect(r.ok, argv.join(' ')).toBe(false);
    }
  });
});

describe('chatCommand', () => {
  it('names --url only when the API is not the default one', () => {
    expect(chatCommand('http://127.0.0.1:3000')).toBe('npm run chat');
    expect(chatCommand('http://127.0.0.1:3000/', 'demo')).toBe('npm run chat -- --session demo');
    expect(chatCommand('http://127.0.0.1:3101')).toBe('npm run chat -- --url http://127.0.0.1:3101');
    expect(chatCommand('http://127.0.0.1:3101', 'cli-20261201-abc123')).toBe(
      'npm run chat -- --session cli-20261201-abc123 --url http://127.0.0.1:3101',
    );
  });

  it('gives a command that parses back to the same session and URL', () => {
    const cmd = chatCommand('http://localhost:4000', 'a:b@c');
    const argv = cmd.replace('npm run chat -- ', '').split(' ');
    const parsed = parseOptions(argv, {});
    expect(parsed).toMatchObject({ ok: true, options: { session: 'a:b@c', url: 'http://localhost:4000' } });
    expect(chatCommand('http://[::1]:4000')).toBe("npm run chat -- --url 'http://[::1]:4000'");
  });
});
