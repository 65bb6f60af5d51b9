/**
 * Downloads the attachments of a Discord message into the session's workspace, where the agent's tools can open
 * them and the model activity reads them for the turn: `<KESOKU_DATA_DIR>/workspaces/<session>/attachments/
 * <message id>/<n>-<name>` (see infra/workspace.ts). The bot token is never sent: attachment URLs are signed CDN
 * links.
 *
 * An attachment that cannot be downloaded (too big, timeout, HTTP error) is still recorded, without `path`, so
 * an attachment-only message is never dropped and the model is told the file exists.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Attachment } from '../../domain/message.ts';
import type { Logger } from '../../infra/logger.ts';
import { attachmentDirFor, safeFileName } from '../../infra/workspace.ts';
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
  /** `KESOKU_DATA_DIR`: files go into the session workspaces under it. */
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
  const dir = attachmentDirFor(
    opts.dataDir,
    opts.sessionId ?? discordSessionAddress(channelId).sessionId,
    messageId,
  );
  const out: Attachment[] = [];
  for (const [i, a] of list.entries()) {
    const record: Attachment = {
      name: a.name,
      size: a.size,
      ...(a.contentType ? { content_type: a.contentType } : {}),
    };
    const file = path.join(dir, `${i}-${safeName(a.name)}`);
    try {
      await download(a, file, opts);
      out.push({ ...record, path: file });
    } catch (err) {
      opts.logger.warn(
        { channelId, messageId, attachment: a.name, err: String(err) },
        'attachment not downloaded',
      );
      out.push({ ...record, url: a.url });
    }
  }
  return out;
}

async function download(a: DiscordAttachment, file: string, opts: StagingOptions): Promise<void> {
  const maxBytes = opts.maxBytes ?? 25 * 1024 * 1024;
  if (a.size > maxBytes) throw new Error(`attachment is ${a.size} bytes, over the ${maxBytes}-byte limit`);
  const existing = await fs.promises.stat(file).catch(() => null);
  if (existing?.isFile() && existing.size === a.size) return;
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const res = await fetch(a.url, { signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000) });
  if (!res.ok || !res.body) throw new Error(`download answered ${res.status}`);
  let seen = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(seen > maxBytes ? new Error(`attachment is over the ${maxBytes}-byte limit`) : null, chunk);
    },
  });
  const tmp = `${file}.part`;
  try {
    await pipeline(
      Readable.fromWeb(res.body as WebReadableStream<Uint8Array>),
      cap,
      fs.createWriteStream(tmp),
    );
    await fs.promises.rename(tmp, file);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
}

/** A file name safe on every file system (see infra/workspace.ts `safeFileName`). */
export const safeName = safeFileName;
