/**
 * Reactions Kesoku puts on a user's Discord message (adapters/discord/README.md "Reactions"): 👀 once the
 * message is accepted, and while it waits behind other turns its place in line as a number (2️⃣ = one turn runs
 * before it; the running turn is the first), ⏳ past 10. The number is removed when its turn starts and the
 * numbers of the messages still waiting are moved up. Reactions are best effort: a failure is logged, never
 * thrown, and never holds up a turn.
 */
import { Routes, type REST } from 'discord.js';
import type { Logger } from '../../infra/logger.ts';

/** Put on every accepted message. */
export const ACK_EMOJI = '👀';

/** The number emoji 1️⃣ … 🔟, index 0 = 1. */
const KEYCAPS = ['1️⃣', '2️⃣', '3️⃣', '4️⃣', '5️⃣', '6️⃣', '7️⃣', '8️⃣', '9️⃣', '🔟'] as const;
/** A place past 10. */
const LATER = '⏳';
/** Every emoji that shows a place in line (what a refresh may remove). */
export const PLACE_EMOJI: readonly string[] = [...KEYCAPS, LATER];

/**
 * The emoji for place `place` in line (1 = its turn runs, so none), e.g. 2 → 2️⃣, 11 and more → ⏳.
 * @returns null for places below 2
 */
export function placeEmoji(place: number): string | null {
  if (!Number.isInteger(place) || place < 2) return null;
  return KEYCAPS[place - 1] ?? LATER;
}

/** `PUT /channels/{id}/messages/{id}/reactions/{emoji}/@me` (idempotent). Never throws. */
export async function addReaction(
  rest: REST,
  logger: Logger,
  channelId: string,
  messageId: string,
  emoji: string,
): Promise<void> {
  await rest
    .put(Routes.channelMessageOwnReaction(channelId, messageId, encodeURIComponent(emoji)))
    .catch((err: unknown) =>
      logger.debug({ channelId, messageId, emoji, err: String(err) }, 'discord reaction not added'),
    );
}

/** `DELETE /channels/{id}/messages/{id}/reactions/{emoji}/@me` (idempotent). Never throws. */
export async function removeReaction(
  rest: REST,
  logger: Logger,
  channelId: string,
  messageId: string,
  emoji: string,
): Promise<void> {
  await rest
    .delete(Routes.channelMessageOwnReaction(channelId, messageId, encodeURIComponent(emoji)))
    .catch((err: unknown) =>
      logger.debug({ channelId, messageId, emoji, err: String(err) }, 'discord reaction not removed'),
    );
}

/** The emoji Kesoku itself reacted with on a message (`GET` the message: `reactions[].me`). @throws on REST failure */
async function ownReactions(rest: REST, channelId: string, messageId: string): Promise<string[]> {
  const m = (await rest.get(Routes.channelMessage(channelId, messageId))) as {
    reactions?: { me?: boolean; emoji?: { name?: string | null } }[];
  };
  return (m.reactions ?? [])
    .filter((r) => r.me === true)
    .flatMap((r) => (r.emoji?.name ? [r.emoji.name] : []));
}

/**
 * Makes the place-in-line reaction of a message show `place` (see {@link placeEmoji}): removes Kesoku's other
 * place emoji and adds the right one when missing. Never throws.
 */
export async function showPlace(
  rest: REST,
  logger: Logger,
  channelId: string,
  messageId: string,
  place: number,
): Promise<void> {
  const wanted = placeEmoji(place);
  let current: string[];
  try {
    current = await ownReactions(rest, channelId, messageId);
  } catch (err) {
    logger.debug({ channelId, messageId, err: String(err) }, 'discord reactions not read');
    return;
  }
  for (const emoji of current) {
    if (emoji !== wanted && PLACE_EMOJI.includes(emoji))
      await removeReaction(rest, logger, channelId, messageId, emoji);
  }
  if (wanted !== null && !current.includes(wanted))
    await addReaction(rest, logger, channelId, messageId, wanted);
}
