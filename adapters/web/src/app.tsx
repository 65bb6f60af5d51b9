/**
 * The page: sign-in when the API needs a token (kept in session storage, sent only as `Authorization: Bearer`),
 * the sessions list beside the open session, the theme switch (system, light, dark), and the one outbox every
 * view sends through. The open session's id is in the location's fragment (`#s=<id>`), so a reload comes back to
 * it; nothing secret ever goes into the URL. Any 401 forgets the token and asks for one again.
 */
import { render } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, KesokuClient, type OutgoingAttachment } from './api.ts';
import { ChatView } from './chat.tsx';
import { Outbox, type OutboxItem } from './outbox.ts';
import { SessionList, useSessions } from './sessions.tsx';
import {
  applyTheme,
  outboxStore,
  pageConfig,
  seenStore,
  themeStore,
  tokenStore,
  type PageConfig,
  type ThemeChoice,
} from './storage.tsx';

/** A fresh id for a message or a session: 20 random hex digits (crypto.getRandomValues works on plain HTTP too). */
export function randomId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return `${prefix}-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function sessionFromHash(): string | null {
  const m = /^#s=([A-Za-z0-9_.:@-]{1,128})$/.exec(location.hash);
  return m?.[1] ?? null;
}

function SignIn({
  problem,
  onToken,
}: {
  problem: string | null;
  onToken: (token: string) => Promise<string | null>;
}) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(problem);
  const [busy, setBusy] = useState(false);
  return (
    <main class="signin">
      <form
        aria-labelledby="signin-title"
        onSubmit={async (e) => {
          e.preventDefault();
          if (value.trim() === '') return;
          setBusy(true);
          setError(await onToken(value.trim()));
          setBusy(false);
        }}
      >
        <h1 id="signin-title">Kesoku</h1>
        <p>
          This Kesoku API needs a token. It stays in this tab only (session storage) and is sent only to this
          server.
        </p>
        <label for="token">API token</label>
        {/* No name attribute: the token can never be submitted as a form field (into a URL). */}
        <input
          id="token"
          type="password"
          autocomplete="current-password"
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          aria-describedby={error ? 'signin-error' : undefined}
        />
        {error && (
          <p id="signin-error" class="problem" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

function ThemeSwitch() {
  const [choice, setChoice] = useState<ThemeChoice>(themeStore.get());
  return (
    <label class="theme">
      <span class="sr-only">Theme</span>
      <select
        aria-label="Theme"
        value={choice}
        onChange={(e) => {
          const v = e.currentTarget.value as ThemeChoice;
          setChoice(v);
          themeStore.set(v);
        }}
      >
        <option value="auto">◐ system</option>
        <option value="light">☀ light</option>
        <option value="dark">☾ dark</option>
      </select>
    </label>
  );
}

function Shell({
  client,
  config,
  onUnauthorized,
  onSignOut,
}: {
  client: KesokuClient;
  config: PageConfig;
  onUnauthorized: () => void;
  onSignOut: (() => void) | null;
}) {
  const [current, setCurrent] = useState<string | null>(sessionFromHash());
  const [query, setQuery] = useState('');
  const [drawer, setDrawer] = useState(false);
  const [revision, setRevision] = useState(0);
  const [items, setItems] = useState<readonly OutboxItem[]>([]);
  const [status, setStatus] = useState<{ busy: boolean; waiting: number }>({ busy: false, waiting: 0 });
  const list = useSessions(client, { searching: query.trim() !== '', onUnauthorized });

  const outbox = useMemo(
    () =>
      new Outbox({
        client,
        load: outboxStore.get,
        save: outboxStore.set,
        onChange: (next) => setItems(next),
        onUnauthorized,
      }),
    [client, onUnauthorized],
  );
  useEffect(() => {
    setItems(outbox.items());
    const online = () => outbox.wake();
    window.addEventListener('online', online);
    return () => {
      window.removeEventListener('online', online);
      outbox.close();
    };
  }, [outbox]);

  useEffect(() => {
    const onHash = () => setCurrent(sessionFromHash());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const open = useCallback((id: string) => {
    history.replaceState(null, '', `#s=${id}`);
    setCurrent(id);
    setRevision(0);
    setDrawer(false);
  }, []);

  // A session to talk in from the start: the newest one, or a new one.
  useEffect(() => {
    if (current === null && list.loaded) open(list.sessions[0]?.id ?? randomId('web'));
  }, [current, list.loaded, list.sessions, open]);

  const onActivity = useCallback(
    (id: string, rev: number) => {
      seenStore.set(id, rev);
      if (id === current) setRevision(rev);
    },
    [current],
  );

  const onSend = useCallback(
    (sessionId: string, content: string, attachments: OutgoingAttachment[]) => {
      outbox.add({ id: randomId('web'), sessionId, content, ...(attachments.length ? { attachments } : {}) });
      setTimeout(list.refresh, 500);
    },
    [outbox, list.refresh],
  );

  return (
    <div class={`app${drawer ? ' drawer-open' : ''}`}>
      <header class="topbar">
        <button
          type="button"
          class="icon drawer-toggle"
          aria-label={drawer ? 'Hide sessions' : 'Show sessions'}
          aria-expanded={drawer}
          onClick={() => setDrawer(!drawer)}
        >
          ☰
        </button>
        <span class="brand">Kesoku</span>
        <span class="spacer" />
        <ThemeSwitch />
        {onSignOut && (
          <button type="button" class="link" onClick={onSignOut}>
            Sign out
          </button>
        )}
      </header>
      <SessionList
        state={list}
        current={current}
        currentRevision={revision}
        currentStatus={status}
        query={query}
        onQuery={setQuery}
        onOpen={open}
        onNew={() => open(randomId('web'))}
      />
      <main class="main">
        {current !== null && (
          <ChatView
            key={current}
            client={client}
            sessionId={current}
            config={config}
            outbox={items}
            onSend={onSend}
            onRetry={(id) => outbox.retry(id)}
            onDiscard={(id) => outbox.discard(id)}
            onCommittedIds={(sessionId, has) => outbox.settle(sessionId, has)}
            onUnauthorized={onUnauthorized}
            onActivity={onActivity}
            onConnected={() => outbox.wake()}
            onStatus={(id, s) => {
              if (id === current) setStatus(s);
            }}
          />
        )}
      </main>
    </div>
  );
}

export function App() {
  const config = useMemo(pageConfig, []);
  const [token, setToken] = useState<string | null>(tokenStore.get());
  const [problem, setProblem] = useState<string | null>(null);
  const client = useMemo(() => new KesokuClient({ token: tokenStore.get }), []);

  const onUnauthorized = useCallback(() => {
    tokenStore.set(null);
    setToken(null);
    setProblem('The token was not accepted (401). Sign in again.');
  }, []);

  const signIn = useCallback(async (candidate: string): Promise<string | null> => {
    const probe = new KesokuClient({ token: () => candidate });
    try {
      await probe.listSessions({ limit: 1 });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return 'That token was not accepted (401).';
      if (err instanceof ApiError && err.kind === 'unreachable')
        return 'The Kesoku API is not reachable; try again.';
      return `Could not sign in: ${err instanceof ApiError ? err.detail : String(err)}`;
    }
    tokenStore.set(candidate);
    setProblem(null);
    setToken(candidate);
    return null;
  }, []);

  if (config.auth && !token) return <SignIn problem={problem} onToken={signIn} />;
  return (
    <Shell
      key={token ?? 'open'}
      client={client}
      config={config}
      onUnauthorized={onUnauthorized}
      onSignOut={
        config.auth
          ? () => {
              tokenStore.set(null);
              setProblem(null);
              setToken(null);
            }
          : null
      }
    />
  );
}

/** Starts the page in `root`. */
export function start(root: HTMLElement): void {
  applyTheme(themeStore.get());
  render(<App />, root);
}
