/**
 * Downloads the attachments of a Discord message into the staging directory (seed 1 §4.1: "媒体图片下载到 Staging
 * 工作目录"): `<KESOKU_DATA_DIR>/staging/discord/<channel id>/<message id>/<n>-<name>`. The bot token is never sent:
 * attachment URLs are signed CDN links.
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
  /** `<KESOKU_DATA_DIR>/staging/discord`. */
  root: string;
  /** Largest file downloaded, bytes. Default 25 MiB. */
  maxBytes?: number;
  /** Per download, ms. Default 30 s. */
  timeoutMs?: number;
  logger: Logger;
}

/** `<data dir>/staging/discord`. */
export function stagingRoot(dataDir: string): string {
  return path.join(dataDir, 'staging', 'discord');
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
  const dir = path.join(opts.root, safeSegment(channelId), safeSegment(messageId));
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

/** A file name safe on every file system: letters, digits, `.`, `_`, `-`; at most 100 characters. */
export function safeName(name: string): string {
  const base = path
    .basename(name)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '_');
  return (base === '' ? 'file' : base).slice(-100);
}

function safeSegment(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, '_');
}
