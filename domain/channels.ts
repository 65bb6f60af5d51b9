/**
 * What a chatbot's channel can do, as far as the session workflow needs to know. The session client computes
 * these once when it starts a session workflow and passes them in its input; workflow code never reads a list
 * of channel names.
 *
 * Pure module.
 */

/** The capabilities the session workflow receives in its input. */
export interface ChannelCapabilities {
  /** The sink renders thoughts and tool calls live (Discord, Google Chat): progress is pushed per step. */
  liveProgress: boolean;
  /**
   * Delivery is a database write with no platform call (the REST API's sink: clients read Postgres and the
   * event stream), so deliveries run as local activities.
   */
  inlineDelivery: boolean;
}

const LIVE_PROGRESS_CHATBOTS: ReadonlySet<string> = new Set(['discord', 'google_chat', 'wechat']);
const INLINE_DELIVERY_CHATBOTS: ReadonlySet<string> = new Set(['api']);

/** The capabilities of chatbot `chatbotId` (`api`, `discord`, …); unknown chatbots get neither. */
export function channelCapabilities(chatbotId: string): ChannelCapabilities {
  return {
    liveProgress: LIVE_PROGRESS_CHATBOTS.has(chatbotId),
    inlineDelivery: INLINE_DELIVERY_CHATBOTS.has(chatbotId),
  };
}
