/**
 * Downloads the attachments of a Discord message into the session's attachment directory, where the agent's tools
 * can open them and the model activity reads them for the turn: `<KESOKU_DATA_DIR>/attachments/<session>/
 * <message id>/<n>-<name>` (infra/attachments-store.ts, which never follows a link on the way). The bot token is
 * never sent: attachment URLs are signed CDN links.
 *
 * An attachment that cannot be downloaded (too big, timeout, HTTP error) is still recorded, without `path`, so
 * an attachment-only message is never dropped and the model is told the file exists.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Attachment } from '../../domain/message.ts';
import { MessageAttachments, removeEmptyMessageDir } from '../../infra/attachments-store.ts';
import type { Logger } from '../../infra/logger.ts';
import { attachmentFileName, safeFileName } from '../../infra/workspace.ts';
import { discordSessionAddress } from './ids.ts';

/** An attachment as Discord announced it. `size` in bytes. */
export interface DiscordAttachment {
  id: string;
  name: string;
  url: string;
  contentType: string | null;
  size: number;
}

/** Where and how attachments are staged. */
export interface StagingOptions {
  /** `KESOKU_DATA_DIR`: files go into the attachment directories under it. */
  dataDir: string;
  /** Largest file downloaded, bytes. Default 25 MiB. */
  maxBytes?: number;
  /** Per download, ms. Default 30 s. */
  timeoutMs?: number;
  logger: Logger;
  /** The session the message goes to (its workspace); default: the channel's first session (ids.ts). */
  sessionId?: string;
}

/**
 * Stages every attachment of message `messageId` in `channelId`. Idempotent: a file already staged with the
 * announced size is not downloaded again (gateway replays).
 * @returns the attachment records for `metadata.attachments` (name, content_type, size, path | url)
 */
export async function stageAttachments(
  channelId: string,
  messageId: string,
  list: readonly DiscordAttachment[],
  opts: StagingOptions,
): Promise<Attachment[]> {
  const sessionId = opts.sessionId ?? discordSessionAddress(channelId).sessionId;
  const out: Attachment[] = [];
  let store: MessageAttachments | undefined;
  let stored = false;
  try {
    for (const [i, a] of list.entries()) {
      const record: Attachment = {
        name: a.name,
        size: a.size,
        ...(a.contentType ? { content_type: a.contentType } : {}),
      };
      const name = attachmentFileName(i, a.name);
      try {
        store ??= await MessageAttachments.open(opts.dataDir, sessionId, messageId, { create: true });
        await download(a, store, name, opts);
        out.push({ ...record, path: store.pathOf(name) });
        stored = true;
      } catch (err) {
        opts.logger.warn(
          { channelId, messageId, attachment: a.name, err: String(err) },
          'attachment not downloaded',
        );
        out.push({ ...record, url: a.url });
      }
    }
  } finally {
    await store?.close();
    // A message none of whose files could be stored leaves no empty directory behind.
    if (store && !stored) await removeEmptyMessageDir(opts.dataDir, sessionId, messageId);
  }
  return out;
}

async function download(
  a: DiscordAttachment,
  store: MessageAttachments,
  name: string,
  opts: StagingOptions,
): Promise<void> {
  const maxBytes = opts.maxBytes ?? 25 * 1024 * 1024;
  if (a.size > maxBytes) throw new Error(`attachment is ${a.size} bytes, over the ${maxBytes}-byte limit`);
  const existing = await store.existing(name);
  if (existing?.size === a.size) return;
  const res = await fetch(a.url, { signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000) });
  if (!res.ok || !res.body) throw new Error(`download answered ${res.status}`);
  await store.write(name, Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), {
    existing: 'replace',
    maxBytes,
  });
}

/** A file name safe on every file system (see infra/workspace.ts `safeFileName`). */
export const safeName = safeFileName;
