/**
 * What a chatbot's channel can do, as far as the session workflow needs to know. The session client computes
 * these once when it starts a session workflow and passes them in its input; workflow code never reads a list
 * of channel names. A chat channel's capabilities come from its descriptor's `features`
 * (adapters/registry.ts `capabilitiesOf`).
 *
 * Pure module.
 */

/** The capabilities the session workflow receives in its input. */
export interface ChannelCapabilities {
  /** The sink renders thoughts and tool calls live: progress is pushed to it per step (`presentProgress`). */
  liveProgress: boolean;
  /**
   * Delivery is a database write with no platform call (the REST API's sink: clients read Postgres and the
   * event stream), so deliveries run as local activities.
   */
  inlineDelivery: boolean;
}

/** The REST API's chatbot (`api`): clients read Postgres and the event stream, so delivery is a status change. */
export const API_CAPABILITIES: ChannelCapabilities = Object.freeze({
  liveProgress: false,
  inlineDelivery: true,
});

/** A chatbot nothing is known of: no live progress, deliveries through a sink as activities. */
export const NO_CAPABILITIES: ChannelCapabilities = Object.freeze({
  liveProgress: false,
  inlineDelivery: false,
});

/** Looks up the capabilities of a chatbot id (`api`, a chat channel's id). */
export type CapabilitiesLookup = (chatbotId: string) => ChannelCapabilities;

/** The lookup that knows only the REST API; chat channels need the registry's (adapters/registry.ts). */
export const apiOnlyCapabilities: CapabilitiesLookup = (chatbotId) =>
  chatbotId === 'api' ? API_CAPABILITIES : NO_CAPABILITIES;
