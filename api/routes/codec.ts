/**
 * The codec endpoint of the Temporal Web UI's codec-server protocol, so an operator reads encrypted payloads
 * in the UI: `POST /codec/encode` and `POST /codec/decode` take and return `{"payloads": [Payload…]}` in the
 * protobuf JSON form (`metadata` values and `data` base64).
 *
 * Protected by the codec token, given either as `Authorization: Bearer <token>` (the `temporal` CLI's
 * `--codec-auth`; the `npm start` Web UI proxy, infra/web-ui-proxy.ts, forwards the UI's requests this way) or
 * as a path segment, `/codec/<token>/decode`, for a UI that cannot attach a header (the request log shows
 * `<token>` there, api/context.ts).
 * Browsers reach it cross-origin from the UI: CORS answers only the configured UI origins, allowing the
 * headers the UI sends (content-type, x-namespace, authorization). Every refusal is problem+json. Decode hands an
 * unencrypted payload back as it is (the UI shows it; workers refuse it, infra/payload-codec.ts), so one such
 * payload in a history does not blank the others.
 */
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Payload } from '@temporalio/common';
import type { CodecOptions } from '../deps.ts';
import { z } from 'zod';
import { isEncrypted } from '../../infra/payload-codec.ts';
import { bearerOf, tokenDigests, tokenMatch } from '../auth.ts';
import { HttpProblem } from '../problems.ts';
import { parseBody, type CodecPayloads } from '../schemas.ts';

/** Where the codec endpoint is mounted. */
export const CODEC_PATH = '/codec';

const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');
const payloadsSchema = z.object({
  payloads: z
    .array(z.object({ metadata: z.record(z.string(), base64).optional(), data: base64.optional() }).loose())
    .max(1000),
});

type JsonPayload = { metadata?: Record<string, string>; data?: string };

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
  ),
  data: Buffer.from(p.data ?? '', 'base64'),
});

const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [
      k,
      Buffer.from(v ?? new Uint8Array()).toString('base64'),
    ]),
  ),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

/** The codec router (serves paths under {@link CODEC_PATH}; mount it before any JSON body parser). */
export function codecRouter(opts: CodecOptions): Router {
  const router = Router();
  const all = Router();
  const digests = tokenDigests([{ token: opts.token }]);
  const origins = new Set(opts.origins);

  all.use((req: Request, res: Response, next: NextFunction) => {
    const origin = req.get('origin');
    if (origin !== undefined) {
      if (!origins.has(origin)) {
        return next(
          new HttpProblem(
            'forbidden',
            `origin ${origin} may not use the codec endpoint (see KESOKU_CODEC_ORIGINS)`,
          ),
        );
      }
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-allow-credentials', 'true');
      res.setHeader('vary', 'Origin');
    }
    if (req.method === 'OPTIONS') {
      res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
      res.setHeader('access-control-allow-headers', 'content-type, x-namespace, authorization');
      res.setHeader('access-control-max-age', '600');
      res.status(204).end();
      return;
    }
    next();
  });

  const authorized = (req: Request, pathToken: string | undefined): boolean => {
    const presented = pathToken ?? bearerOf(req);
    return presented !== null && tokenMatch(presented, digests) !== null;
  };

  const handle = (direction: 'encode' | 'decode') => async (req: Request, res: Response) => {
    const pathToken = (req.params as { codecToken?: string }).codecToken;
    if (!authorized(req, pathToken)) {
      throw new HttpProblem(
        'unauthorized',
        'the codec endpoint needs its token (Authorization: Bearer <token> or /codec/<token>/…)',
        {
          headers: { 'www-authenticate': 'Bearer realm="kesoku-codec"' },
        },
      );
    }
    if (!req.is('application/json')) {
      throw new HttpProblem('unsupported_media_type', 'send {"payloads": […]} as application/json');
    }
    const body = parseBody(payloadsSchema, req.body);
    const payloads = body.payloads.map((p) => fromJson(p as JsonPayload));
    let out: Payload[];
    try {
      out =
        direction === 'encode'
          ? await opts.codec.encode(payloads)
          : await Promise.all(
              // The UI shows an unencrypted payload as it is; workers refuse it (infra/payload-codec.ts).
              payloads.map(async (p) =>
                isEncrypted(p) ? ((await opts.codec.decode([p]))[0] as Payload) : p,
              ),
            );
    } catch (err) {
      throw new HttpProblem('validation', `a payload could not be ${direction}d: ${(err as Error).message}`);
    }
    res.status(200).json({ payloads: out.map(toJson) } satisfies CodecPayloads);
  };

  const json = express.json({ limit: '4mb', type: 'application/json' });
  router.use(CODEC_PATH, all);
  router.post(`${CODEC_PATH}/encode`, json, handle('encode'));
  router.post(`${CODEC_PATH}/decode`, json, handle('decode'));
  router.post(`${CODEC_PATH}/:codecToken/encode`, json, handle('encode'));
  router.post(`${CODEC_PATH}/:codecToken/decode`, json, handle('decode'));
  return router;
}
