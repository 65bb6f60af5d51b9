/**
 * Chat access for every chat adapter: the pure rule of domain/access-policy.ts plus the paired users and
 * pairing codes kept in Postgres (db/pairings.ts). An adapter calls {@link ChatAccess.check} for each message
 * and, on `pairing`, {@link ChatAccess.pairingCode} to learn what to tell the sender.
 */
import { ConfigError } from '../../infra/config.ts';
import type { Logger } from '../../infra/logger.ts';
import type { Pool } from '../../db/pool.ts';
import {
  PairingError,
  isPaired,
  requestPairing,
  type PairingRequestOptions,
  type PairingTicket,
} from '../../db/pairings.ts';
import {
  decideAccess,
  passesLists,
  type AccessDecision,
  type AccessPolicy,
  type ChatPlace,
} from '../../domain/access-policy.ts';

/** Access decisions and pairing codes for one chatbot. */
export interface ChatAccess {
  readonly policy: AccessPolicy;
  /** Decides access for a message (queries paired users only when the lists alone do not allow it). */
  check(place: ChatPlace): Promise<AccessDecision>;
  /**
   * The sender's open pairing code (the same one for an hour; a new one after it expired), or null when no code
   * can be issued now (too many open requests; logged at warn). `notify` says whether to tell the user now:
   * replies are rate limited, so a user who writes ten times in a minute is answered once.
   */
  pairingCode(place: ChatPlace, userName: string): Promise<PairingTicket | null>;
}

/** Options of {@link createChatAccess}. */
export interface ChatAccessOptions {
  policy: AccessPolicy;
  /** Where paired users and codes live; may be null only in mode `open`, or `lists` without pairing. */
  pool: Pool | null;
  logger: Logger;
  /** Code lifetime, reply interval and open-request cap (db/pairings.ts defaults: 1 h, 10 min, 100). */
  pairing?: Pick<PairingRequestOptions, 'ttlMs' | 'notifyIntervalMs' | 'maxOpen'>;
}

/** @throws ConfigError in mode `pairing` without a pool */
export function createChatAccess(o: ChatAccessOptions): ChatAccess {
  const { policy, pool, logger } = o;
  if (policy.mode === 'pairing' && pool === null)
    throw new ConfigError('chat access by pairing needs the database (paired users are kept in Postgres)');
  const paired = (place: ChatPlace) =>
    pool ? isPaired(pool, place.chatbotId, place.userId) : Promise.resolve(false);
  return {
    policy,
    async check(place) {
      if (policy.mode === 'open') return 'allowed';
      if (policy.mode === 'lists' && passesLists(policy, place, false)) return 'allowed';
      return decideAccess(policy, place, await paired(place));
    },
    async pairingCode(place, userName) {
      if (!pool) return null;
      try {
        return await requestPairing(pool, {
          chatbotId: place.chatbotId,
          userId: place.userId,
          userName,
          channelId: place.channelId,
          ...o.pairing,
        });
      } catch (err) {
        if (err instanceof PairingError && err.kind === 'capacity') {
          logger.warn(
            { chatbotId: place.chatbotId, userId: place.userId },
            `no pairing code issued: ${err.message}`,
          );
          return null;
        }
        throw err;
      }
    },
  };
}

/**
 * The start-up warning for open access (`variable`=true): printed as a plain line on stderr, which `npm start`
 * shows (it logs at warn), and logged at warn for log collectors.
 */
export function warnOpenAccess(
  adapter: string,
  variable: string,
  logger: Logger,
  stderr: Pick<NodeJS.WriteStream, 'write'> = process.stderr,
): void {
  const text =
    `${variable}=true: ANYONE who can reach the ${adapter} bot can talk to the agent, and the agent runs shell ` +
    `commands on this host. Unset ${variable} to require pairing or set an allowlist.`;
  stderr.write(`kesoku: WARNING: ${text}\n`);
  logger.warn({ adapter, variable }, text);
}
