/**
 * What Discord can do, as the channel descriptor's `features` (adapters/kit/channel.ts `ChannelFeatures`); a
 * module of its own so that the adapter (./run.ts) reads the same values as the descriptor (./channel.ts).
 */
import type { ChannelFeatures } from '../kit/channel.ts';
import { DISCORD_MAX_CONTENT } from './split.ts';

export const DISCORD_FEATURES: ChannelFeatures = {
  liveProgress: true,
  inlineDelivery: false,
  editsInPlace: true,
  maxMessageLength: DISCORD_MAX_CONTENT,
  lengthUnit: 'utf16',
  markdown: 'discord',
  attachments: true,
  buttons: true,
  // Approve / Deny / Always buttons on the approval request (./approvals.ts).
  decidesApprovals: true,
};
