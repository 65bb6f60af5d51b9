/**
 * What the `npx kesoku` commands share: where the API is and which token to send, a one-call model check, a
 * port probe, and how a check result is printed.
 */
import net from 'node:net';
import { generateText } from 'ai';
import { tokenFromList } from '../../adapters/cli/options.ts';
import type { LlmConfig } from '../../activities/llm/provider.ts';
import { createLanguageModel } from '../../activities/llm/provider.ts';
import { classifyModelError } from '../../activities/llm/errors.ts';

/**
 * The REST API the commands talk to: `KESOKU_API_URL`, else the running Kesoku's (from its pid file), else
 * `http://127.0.0.1:$KESOKU_API_PORT` (3000); and the token: `KESOKU_API_TOKEN`, else the `admin` (or first)
 * entry of `KESOKU_API_TOKENS` — as the terminal client picks them.
 */
export function apiTarget(
  env: NodeJS.ProcessEnv,
  runningUrl?: string,
): { url: string; token: string | undefined } {
  const port = env.KESOKU_API_PORT?.trim();
  const url =
    env.KESOKU_API_URL?.trim() ||
    runningUrl ||
    `http://127.0.0.1:${port && /^\d{1,5}$/.test(port) && port !== '0' ? port : '3000'}`;
  const token = env.KESOKU_API_TOKEN?.trim() || tokenFromList(env.KESOKU_API_TOKENS ?? '') || undefined;
  return { url: url.replace(/\/+$/, ''), token };
}

/**
 * Makes one small real call to the model (`Reply with the single word: OK`), as the worker would.
 * @param timeoutMs how long to wait for the answer (default 30 000 ms)
 * @returns the answer's first line, or the reason it failed (the provider's message, classified)
 */
export async function checkModel(
  llm: LlmConfig,
  timeoutMs = 30_000,
): Promise<{ ok: true; answer: string; ms: number } | { ok: false; reason: string }> {
  const started = Date.now();
  try {
    const result = await generateText({
      model: createLanguageModel(llm),
      prompt: 'Reply with the single word: OK',
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(timeoutMs),
    });
    const answer = result.text.trim().split('\n')[0]?.slice(0, 80) ?? '';
    return { ok: true, answer, ms: Date.now() - started };
  } catch (err) {
    const classified = classifyModelError(err);
    const detail = err instanceof Error ? err.message : String(err);
    return { ok: false, reason: `${classified.kind}: ${detail.slice(0, 300)}` };
  }
}

/** True when something accepts TCP connections on `host:port` (within 1 s). */
export function portInUse(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (v: boolean) => {
      socket.destroy();
      resolve(v);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1000, () => done(false));
  });
}

/** A fetch of JSON with a time limit; null when nothing answered. */
export async function getJson(
  url: string,
  opts: { token?: string; timeoutMs?: number } = {},
): Promise<{ status: number; body: unknown } | null> {
  try {
    const res = await fetch(url, {
      headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
      signal: AbortSignal.timeout(opts.timeoutMs ?? 3000),
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  } catch {
    return null;
  }
}
