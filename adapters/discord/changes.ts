/**
 * Gateway edits and deletes (MESSAGE_UPDATE, MESSAGE_DELETE) handed to the ingress (ingress.ts `acceptEdit`,
 * `acceptDelete`): an edit of a queued message changes it, a delete withdraws it (adapters/discord/README.md
 * "Edits and deletes"). Updates that do not change the text (Discord adds a link embed, a pin) are skipped.
 */
import { Events, type Client } from 'discord.js';
import type { Logger } from '../../infra/logger.ts';
import { fromDiscordJs, type DiscordIngress, type IngressOutcome } from './ingress.ts';

/** What {@link watchEditsAndDeletes} needs from the running adapter. */
export interface ChangeWatchDeps {
  client: Client;
  ingress: Pick<DiscordIngress, 'acceptEdit' | 'acceptDelete'>;
  logger: Logger;
  /** False while the adapter stops: nothing new is taken. */
  accepting: () => boolean;
  /** Keeps a handling in flight until it ends (the adapter waits for them on stop). */
  track: (task: Promise<unknown>) => void;
  onHandled?: (discordMessageId: string, outcome: IngressOutcome) => void;
}

/** Subscribes to edits and deletes on `client` (needs `Partials.Message` for messages not in the cache). */
export function watchEditsAndDeletes(deps: ChangeWatchDeps): void {
  const { client, ingress, logger } = deps;
  const done = (id: string) => (outcome: IngressOutcome) => {
    logger.debug({ discordMessageId: id, outcome }, 'discord message change handled');
    deps.onHandled?.(id, outcome);
  };
  client.on(Events.MessageUpdate, (before, after) => {
    if (!deps.accepting() || after.partial) return;
    if (!before.partial && before.content === after.content) return;
    deps.track(ingress.acceptEdit(fromDiscordJs(after, client.user?.id ?? null)).then(done(after.id)));
  });
  client.on(Events.MessageDelete, (message) => {
    if (!deps.accepting()) return;
    const channel = message.channel;
    deps.track(
      ingress
        .acceptDelete({
          id: message.id,
          channelId: message.channelId,
          guildId: message.guildId,
          isThread: channel?.isThread() ?? false,
          isDM: channel?.isDMBased() ?? false,
        })
        .then(done(message.id)),
    );
  });
}
