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

const LIVE_PROGRESS_CHATBOTS: ReadonlySet<string> = new Set(['discord', 'google_chat']);
const INLINE_DELIVERY_CHATBOTS: ReadonlySet<string> = new Set(['api']);

/**
 * The capabilities of chatbot `chatbotId` (`api`, `discord`, …); unknown chatbots get neither. `cli` (the
 * terminal client) gets neither on purpose: it renders from the event stream, not through a live sink, and its
 * replies must not be completed inline (marked `delivered` in the model step) because its client acknowledges
 * what it printed (activities/sink.ts `cliSink`).
 */
export function channelCapabilities(chatbotId: string): ChannelCapabilities {
  return {
    liveProgress: LIVE_PROGRESS_CHATBOTS.has(chatbotId),
    inlineDelivery: INLINE_DELIVERY_CHATBOTS.has(chatbotId),
  };
}
