/**
 * The Google Chat channel's configuration: its variables, parsed from the whole environment with zod. The
 * channel is on when GOOGLE_CHAT_CREDENTIALS_FILE (the service account key Kesoku answers with) is set.
 *
 * Incoming requests carry a Google-signed bearer token (docs: "Verify requests from Google Chat"). Its expected
 * audience is the app's authentication audience: the Cloud project number (the token is then a JWT issued by
 * `chat@system.gserviceaccount.com`) or the endpoint URL (an OpenID Connect ID token issued by
 * `https://accounts.google.com` for that service account). The key set and issuer follow from that choice
 * unless GOOGLE_CHAT_JWKS_URL / GOOGLE_CHAT_ISSUER say otherwise (tests point them at a local key set).
 */
import { z } from 'zod';
import { flag, list, optionalString } from '../../infra/config.ts';

/** Default of GOOGLE_CHAT_ATTACHMENT_MAX_BYTES (25 MiB, as Discord's). */
export const DEFAULT_ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024;

/** The service account whose keys sign the tokens of project-number audiences, and the ID tokens' `email`. */
export const CHAT_SYSTEM_ACCOUNT = 'chat@system.gserviceaccount.com';
/** Key set of {@link CHAT_SYSTEM_ACCOUNT} (project-number audience). */
export const CHAT_JWKS_URL = `https://www.googleapis.com/service_accounts/v1/jwk/${CHAT_SYSTEM_ACCOUNT}`;
/** Google's OpenID Connect key set (endpoint-URL audience). */
export const GOOGLE_OIDC_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs';
/** Google's OAuth 2.0 token endpoint, which the client library asks for access tokens. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** The Chat REST API root. */
export const GOOGLE_CHAT_API_URL = 'https://chat.googleapis.com/';

const url = (def: string) =>
  optionalString.transform((v, ctx) => {
    const value = v ?? def;
    if (!URL.canParse(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute URL' });
      return z.NEVER;
    }
    return value;
  });

const port = optionalString.transform((v, ctx) => {
  if (v === undefined) return 8790;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    ctx.addIssue({ code: 'custom', message: 'must be an integer between 0 and 65535' });
    return z.NEVER;
  }
  return n;
});

/** A space id as the allowlist takes it: `AAAA` or `spaces/AAAA`, stored as `AAAA`. */
const spaceId = (s: string) => s.replace(/^spaces\//, '');
/** A user id as the allowlist takes it: `123` or `users/123`, stored as `123`. */
const userId = (s: string) => s.replace(/^users\//, '');

/** The variables the channel reads (see README "Google Chat"). */
export const googleChatConfigSchema = z.object({
  /** Service account key file (JSON) the replies are sent with; the channel is off without it. */
  GOOGLE_CHAT_CREDENTIALS_FILE: optionalString,
  /** Expected `aud` of incoming tokens: the project number, or the endpoint URL. */
  GOOGLE_CHAT_AUDIENCE: optionalString,
  GOOGLE_CHAT_JWKS_URL: optionalString,
  GOOGLE_CHAT_ISSUER: optionalString,
  GOOGLE_CHAT_API_URL: url(GOOGLE_CHAT_API_URL),
  GOOGLE_CHAT_TOKEN_URL: url(GOOGLE_TOKEN_URL),
  GOOGLE_CHAT_HOST: optionalString.transform((v) => v ?? '127.0.0.1'),
  GOOGLE_CHAT_PORT: port,
  GOOGLE_CHAT_PATH: optionalString.transform((v, ctx) => {
    const p = v ?? '/googlechat/events';
    if (!p.startsWith('/')) {
      ctx.addIssue({ code: 'custom', message: 'must start with /' });
      return z.NEVER;
    }
    return p;
  }),
  GOOGLE_CHAT_ALLOWED_SPACES: list.transform((l) => l.map(spaceId)),
  GOOGLE_CHAT_ALLOWED_USERS: list.transform((l) => l.map(userId)),
  /**
   * Users (`123` or `users/123`, comma list) who may decide any tool call waiting for approval with the card's
   * buttons, besides the person who asked (./approvals.ts). Stored as `123`.
   */
  GOOGLE_CHAT_APPROVERS: list.transform((l) => l.map(userId)),
  /**
   * The worker's default tool-approval policy (infra/config.ts), read here too: in a space a non-approver may not
   * loosen `/approval` below the policy in force (adapters/kit/approval-policy.ts).
   */
  KESOKU_TOOL_APPROVAL: z.enum(['off', 'writes', 'all']).optional(),
  /** Explicit opt-in to open access (everyone who can reach the app may talk to the agent). */
  GOOGLE_CHAT_ALLOW_ALL: flag,
  /** Largest attachment downloaded, bytes (default 25 MiB); larger files are refused with a message. */
  GOOGLE_CHAT_ATTACHMENT_MAX_BYTES: optionalString.transform((v, ctx) => {
    if (v === undefined) return DEFAULT_ATTACHMENT_MAX_BYTES;
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 1) {
      ctx.addIssue({ code: 'custom', message: 'must be a positive whole number of bytes' });
      return z.NEVER;
    }
    return n;
  }),
});

/** The parsed configuration. */
export type GoogleChatConfig = z.infer<typeof googleChatConfigSchema>;

/** How incoming bearer tokens are checked. */
export interface TokenCheck {
  audience: string;
  /** Accepted `iss` values. */
  issuers: string[];
  jwksUrl: string;
  /** For ID tokens (endpoint-URL audience): the `email` claim must be this verified address. */
  email: string | null;
}

/**
 * The token check the configuration asks for: an all-digit audience is a project number (issuer
 * {@link CHAT_SYSTEM_ACCOUNT}, its key set), anything else an endpoint URL (Google's OIDC issuer and keys, and
 * `email` = {@link CHAT_SYSTEM_ACCOUNT}). Null without GOOGLE_CHAT_AUDIENCE.
 */
export function tokenCheckOf(c: GoogleChatConfig): TokenCheck | null {
  const audience = c.GOOGLE_CHAT_AUDIENCE;
  if (audience === undefined) return null;
  const projectNumber = /^\d+$/.test(audience);
  return {
    audience,
    issuers: c.GOOGLE_CHAT_ISSUER
      ? [c.GOOGLE_CHAT_ISSUER]
      : projectNumber
        ? [CHAT_SYSTEM_ACCOUNT]
        : ['https://accounts.google.com', 'accounts.google.com'],
    jwksUrl: c.GOOGLE_CHAT_JWKS_URL ?? (projectNumber ? CHAT_JWKS_URL : GOOGLE_OIDC_JWKS_URL),
    email: projectNumber ? null : CHAT_SYSTEM_ACCOUNT,
  };
}
