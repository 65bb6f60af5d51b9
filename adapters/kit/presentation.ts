/**
 * The visibility policy a channel's sink asks (docs/message-model.md §5.3): whether a message is shown as a
 * message of its own, rendered live in an intermediate status edited in place, or marked delivered without being
 * sent. The seed's table is data in domain/presentation.ts (`VISIBILITY_MATRIX`); a channel without a column there
 * gets the policy its features imply. Pure.
 */
import type { Message } from '../../domain/message.ts';
import { messageKind } from '../../domain/message-kind.ts';
import {
  PRESENTATION_KIND_OF,
  VISIBILITY_MATRIX,
  isChannel,
  type Presentation,
  type PresentationKind,
} from '../../domain/presentation.ts';
import type { ChannelFeatures } from './channel.ts';

export type { Presentation, PresentationKind };

/**
 * How chatbot `channelId` presents `message`: its column of the visibility matrix when it has one; otherwise
 * final text and user questions `shown`, and intermediate messages (thoughts, tool calls and output, system
 * logs) `live` on a channel that renders progress in place (`features.liveProgress` and `editsInPlace`),
 * `silent` on any other. `hidden` for messages no channel receives (system prompt, background alerts, nudges).
 */
export function presentationFor(
  channelId: string,
  message: Message,
  features?: Pick<ChannelFeatures, 'liveProgress' | 'editsInPlace'>,
): Presentation | 'hidden' {
  const kind = PRESENTATION_KIND_OF[messageKind(message)];
  if (kind === null) return 'hidden';
  return presentationOfKind(channelId, kind, features);
}

/** {@link presentationFor} by the row of the matrix rather than a message. */
export function presentationOfKind(
  channelId: string,
  kind: PresentationKind,
  features?: Pick<ChannelFeatures, 'liveProgress' | 'editsInPlace'>,
): Presentation {
  if (isChannel(channelId)) return VISIBILITY_MATRIX[channelId][kind];
  if (kind === 'user_question' || kind === 'final_text') return 'shown';
  return features?.liveProgress && features.editsInPlace ? 'live' : 'silent';
}
