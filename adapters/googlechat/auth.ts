/**
 * Checking the bearer token Google Chat puts on every request to the app's endpoint (docs: "Verify requests
 * from Google Chat"): an RS256 JWT signed with a key of the configured key set, with the expected issuer and
 * audience, not expired, and — for ID tokens (endpoint-URL audience) — the verified `email` of Chat's own
 * service account. Verification is `jose`'s; the key set is fetched and cached by `createRemoteJWKSet`.
 */
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { TokenCheck } from './config.ts';

/** Why a request was refused (logged; the caller answers 401 either way). */
export class ChatTokenError extends Error {
  readonly kind = 'unauthorized';
}

/** Verifies `Authorization` header values. */
export type TokenVerifier = (authorization: string | undefined) => Promise<void>;

/**
 * A verifier for `check`. @returns a function resolving when the header carries a valid token
 * @throws ChatTokenError (from the returned function) for a missing, malformed, expired or foreign token
 */
export function createTokenVerifier(check: TokenCheck): TokenVerifier {
  const keys = createRemoteJWKSet(new URL(check.jwksUrl));
  return async (authorization) => {
    const m = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '');
    if (!m?.[1]) throw new ChatTokenError('no bearer token');
    let payload;
    try {
      ({ payload } = await jwtVerify(m[1], keys, {
        algorithms: ['RS256'],
        issuer: check.issuers,
        audience: check.audience,
        clockTolerance: 30,
        requiredClaims: ['exp', 'iat'],
      }));
    } catch (err) {
      if (err instanceof errors.JOSEError) throw new ChatTokenError(`bad token: ${err.code}`);
      throw err;
    }
    if (check.email !== null && (payload.email !== check.email || payload.email_verified !== true))
      throw new ChatTokenError('the token was not issued to Google Chat');
  };
}
