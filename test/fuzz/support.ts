/**
 * Fuzz-run support: run sizes (`KESOKU_FUZZ_RUNS`), seeds (`KESOKU_FUZZ_SEED`), the per-property case counts
 * printed with a `[fuzz]` prefix and written to test/fuzz/last-run.json when `KESOKU_FUZZ_REPORT=1`, and a raw
 * HTTP/1.1 client that sends paths, headers and bodies byte for byte (fetch and http.request normalise or refuse
 * what these tests need to send).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import fc from 'fast-check';

/** Scale factor of every property's run count (default 1; e.g. `KESOKU_FUZZ_RUNS=10`). */
export const FUZZ_SCALE = (() => {
  const raw = process.env.KESOKU_FUZZ_RUNS;
  const n = raw === undefined || raw === '' ? 1 : Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`KESOKU_FUZZ_RUNS must be a positive number, got ${raw}`);
  return n;
})();

/** `KESOKU_FUZZ_STRICT=1`: also generate the inputs of known, reported bugs (the properties then fail on them). */
export const FUZZ_STRICT = process.env.KESOKU_FUZZ_STRICT === '1';

/** One seed for the whole file (`KESOKU_FUZZ_SEED` to replay a run); each property derives its own from it. */
export const FUZZ_SEED = (() => {
  const raw = process.env.KESOKU_FUZZ_SEED;
  if (raw !== undefined && raw !== '') return Number(raw) | 0;
  return (Date.now() ^ (process.pid << 8)) | 0;
})();

/** Runs for a property whose default (scale 1) is `base`. */
export const runs = (base: number): number => Math.max(1, Math.round(base * FUZZ_SCALE));

/** What a property run did. */
export interface PropertyRecord {
  file: string;
  property: string;
  numRuns: number;
  numSkips: number;
  numShrinks: number;
  seed: number;
  ms: number;
  failed: boolean;
  /** Named counters the property kept (e.g. how many cases were accepted, rejected, hit a limit). */
  counters: Record<string, number>;
}

const REPORT_PATH = path.join(import.meta.dirname, 'last-run.json');

/** A tally of named outcomes, kept by a property while it runs. */
export class Counters {
  readonly values: Record<string, number> = {};
  add(name: string, n = 1): void {
    this.values[name] = (this.values[name] ?? 0) + n;
  }
}

let propertyIndex = 0;

/**
 * Checks `property` with fast-check and records its case counts. The seed of property number k of a file is
 * FUZZ_SEED + k, so one `KESOKU_FUZZ_SEED` replays a whole file.
 * @throws Error with fast-check's report (seed, path, counterexample) when the property fails
 */
export async function checkProperty<Ts>(
  file: string,
  name: string,
  property: fc.IAsyncPropertyWithHooks<Ts> | fc.IPropertyWithHooks<Ts>,
  opts: { numRuns: number; counters?: Counters; params?: Partial<fc.Parameters<Ts>> },
): Promise<PropertyRecord> {
  const seed = (FUZZ_SEED + propertyIndex++) | 0;
  const started = Date.now();
  const details = await fc.check(property as fc.IAsyncPropertyWithHooks<Ts>, {
    numRuns: opts.numRuns,
    seed,
    endOnFailure: false,
    ...opts.params,
  });
  const record: PropertyRecord = {
    file,
    property: name,
    numRuns: details.numRuns,
    numSkips: details.numSkips,
    numShrinks: details.numShrinks,
    seed,
    ms: Date.now() - started,
    failed: details.failed,
    counters: { ...opts.counters?.values },
  };
  recordRun(record);
  if (details.failed) {
    const cause = details.errorInstance;
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new Error(
      `[fuzz] ${file} › ${name} failed\n${fc.defaultReportMessage(details)}\nFailure: ${message}`,
      { cause },
    );
  }
  return record;
}

const records: PropertyRecord[] = [];

/** Prints one `[fuzz]` line and keeps the record for {@link writeReport}. */
export function recordRun(r: PropertyRecord): void {
  records.push(r);
  const counters = Object.entries(r.counters)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  process.stdout.write(
    `[fuzz] ${r.file} › ${r.property}: ${r.numRuns} cases${r.numSkips ? `, ${r.numSkips} skipped` : ''}` +
      `${r.failed ? ' FAILED' : ''} (seed ${r.seed}, ${r.ms} ms)${counters ? ` ${counters}` : ''}\n`,
  );
}

/**
 * Merges this file's records into test/fuzz/last-run.json when `KESOKU_FUZZ_REPORT=1` (so ordinary runs leave
 * the working tree clean). Test files run in parallel processes: a lock file serialises the read-merge-write.
 */
export async function writeReport(file: string, extra: Record<string, unknown> = {}): Promise<void> {
  const mine = records.filter((r) => r.file === file);
  const total = mine.reduce((n, r) => n + r.numRuns, 0);
  process.stdout.write(
    `[fuzz] ${file}: ${total} cases in ${mine.length} properties (scale ${FUZZ_SCALE}, seed ${FUZZ_SEED})\n`,
  );
  if (process.env.KESOKU_FUZZ_REPORT !== '1') return;
  const lock = `${REPORT_PATH}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch {
      if (attempt > 200) fs.rmSync(lock, { force: true });
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  try {
    let report: { files?: Record<string, unknown> } = {};
    try {
      report = JSON.parse(fs.readFileSync(REPORT_PATH, 'utf8')) as typeof report;
    } catch {
      report = {};
    }
    const files = { ...report.files };
    files[file] = {
      finished_at: new Date().toISOString(),
      scale: FUZZ_SCALE,
      seed: FUZZ_SEED,
      strict: FUZZ_STRICT,
      total_cases: total,
      properties: mine.map(({ file: _f, ...r }) => r),
      ...extra,
    };
    const tmp = `${REPORT_PATH}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify({ files }, null, 2)}\n`);
    fs.renameSync(tmp, REPORT_PATH);
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Raw HTTP

export interface RawRequest {
  method: string;
  /** The request target exactly as sent (bytes; a string is sent as latin1, so 0x80-0xFF stay single bytes). */
  target: string | Buffer;
  /** Header lines; a string value is sent as latin1. No Host/Connection/Content-Length: those are added. */
  headers?: Record<string, string>;
  body?: Buffer;
  /** For event streams: resolve as soon as the head and some body arrived, then drop the connection. */
  stream?: boolean;
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** The body, de-chunked. For `stream` requests, what arrived before the connection was dropped. */
  body: Buffer;
  text: string;
  /** The parsed JSON body when the content type is JSON, else undefined. */
  json: unknown;
  ms: number;
}

/** Splits a buffer holding a complete HTTP response into its parts. Null when the head is incomplete. */
function parseResponse(buf: Buffer, complete: boolean): Omit<RawResponse, 'ms'> | null {
  const headEnd = buf.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const lines = buf.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
  if (!Number.isInteger(status)) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = buf.subarray(headEnd + 4);
  if ((headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = body.indexOf('\r\n', at);
      if (lineEnd < 0) break;
      const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      if (!Number.isFinite(size) || size === 0) break;
      parts.push(body.subarray(lineEnd + 2, Math.min(body.length, lineEnd + 2 + size)));
      at = lineEnd + 2 + size + 2;
      if (at > body.length) break;
    }
    body = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    if (body.length < n) return null;
    body = body.subarray(0, n);
  } else if (!complete && !/event-stream/i.test(headers['content-type'] ?? '')) {
    return null;
  }
  const text = body.toString('utf8');
  let json: unknown;
  if (/json/i.test(headers['content-type'] ?? '') && text.length > 0) json = JSON.parse(text);
  return { status, headers, body, text, json };
}

/**
 * Sends one request on a fresh connection (`Connection: close`) and reads the whole answer.
 * @throws Error when no complete response arrives within `timeoutMs` (default 30 s)
 */
export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    const chunks: Buffer[] = [];
    let settled = false;
    let writeError: unknown = null;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const tryResolve = (complete: boolean): boolean => {
      const buf = Buffer.concat(chunks);
      let parsed: Omit<RawResponse, 'ms'> | null;
      try {
        parsed = parseResponse(buf, complete);
      } catch (err) {
        finish(() => reject(err as Error));
        return true;
      }
      if (!parsed) return false;
      if (req.stream && parsed.body.length === 0 && !complete) return false;
      const response = parsed;
      finish(() => resolve({ ...response, ms: Date.now() - started }));
      return true;
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`no complete response within ${req.timeoutMs ?? 30_000} ms`))),
      req.timeoutMs ?? 30_000,
    );
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      if (req.stream) tryResolve(false);
    });
    socket.on('end', () => {
      if (!tryResolve(true))
        finish(() =>
          reject(
            new Error(`connection closed without a complete response (write error: ${String(writeError)})`),
          ),
        );
    });
    socket.on('error', (err) => {
      writeError = err;
      // The server may answer (413) and close while the body is still being written: keep what arrived.
      if (!tryResolve(true)) finish(() => reject(err));
    });
    socket.on('connect', () => {
      const target = typeof req.target === 'string' ? Buffer.from(req.target, 'latin1') : req.target;
      const head: string[] = [`Host: ${hostname}:${port}`, 'Connection: close'];
      for (const [k, v] of Object.entries(req.headers ?? {})) head.push(`${k}: ${v}`);
      if (req.body !== undefined) head.push(`Content-Length: ${req.body.length}`);
      socket.write(
        Buffer.concat([
          Buffer.from(`${req.method} `, 'latin1'),
          target,
          Buffer.from(` HTTP/1.1\r\n${head.join('\r\n')}\r\n\r\n`, 'latin1'),
          req.body ?? Buffer.alloc(0),
        ]),
      );
    });
  });
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
