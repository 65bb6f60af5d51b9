/**
 * A list that belongs to the open session and is read, not streamed (its schedules, its background jobs): read when
 * the session opens, again shortly after each commit of the session (its revision moves), every `pollMs` while the
 * caller says so, and whenever the view asks. An answer that arrives after a newer read started, or after the
 * view changed the list itself, is dropped, so a slow read never undoes a newer state.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type KesokuClient } from './api.ts';

/** The list as last read, and how to read it again or change it here. */
export interface PolledList<T> {
  items: T[];
  /** True once it was read once. */
  loaded: boolean;
  /** The problem detail of the last failed read, or null. */
  error: string | null;
  /** Reads it now. */
  reload: () => void;
  /** Changes the list here (e.g. with what a call answered) until the next read. */
  update: (change: (items: T[]) => T[]) => void;
}

/** How long after a commit the list is read again, in ms (a burst of commits makes one read). */
const AFTER_COMMIT_MS = 300;

/**
 * Reads `read(client, sessionId)` as the module comment says; `pollMs` null reads only on those events.
 * `read` must be the same function at every render (a module-level one). A 401 calls `onUnauthorized`.
 */
export function usePolledList<T>(
  client: KesokuClient,
  sessionId: string,
  read: (client: KesokuClient, sessionId: string) => Promise<T[]>,
  revision: number,
  pollMs: number | null,
  onUnauthorized: () => void,
): PolledList<T> {
  const [items, setItems] = useState<T[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);
  const reload = useCallback(() => {
    const mine = ++generation.current;
    void (async () => {
      try {
        const list = await read(client, sessionId);
        if (mine !== generation.current) return;
        setItems(list);
        setError(null);
        setLoaded(true);
      } catch (err) {
        if (mine !== generation.current) return;
        if (err instanceof ApiError && err.status === 401) return onUnauthorized();
        setError(err instanceof ApiError ? err.detail : String(err));
      }
    })();
  }, [client, sessionId, read, onUnauthorized]);
  const update = useCallback((change: (items: T[]) => T[]) => {
    generation.current++;
    setItems(change);
  }, []);

  useEffect(() => {
    setItems([]);
    setLoaded(false);
    setError(null);
  }, [sessionId]);
  useEffect(() => {
    const t = setTimeout(reload, revision === 0 ? 0 : AFTER_COMMIT_MS);
    return () => clearTimeout(t);
  }, [reload, revision]);
  useEffect(() => {
    if (pollMs === null) return;
    const t = setInterval(reload, pollMs);
    return () => clearInterval(t);
  }, [reload, pollMs]);
  useEffect(
    () => () => {
      generation.current++;
    },
    [],
  );
  return { items, loaded, error, reload, update };
}
