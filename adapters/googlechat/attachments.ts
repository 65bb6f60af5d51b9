/**
 * Files attached to a Google Chat message (`message.attachment[]`, the Chat API's Attachment resource), made
 * Kesoku attachments (docs/message-model.md §3 `attachments`) the way Discord's and the REST API's are:
 *
 * - uploaded content (`attachmentDataRef.resourceName`) is downloaded with the Chat API's `media.download`
 *   (`GET {GOOGLE_CHAT_API_URL}v1/media/{resourceName}?alt=media`, through `@googleapis/chat` with the app's
 *   service-account credentials) into the session's attachment directory, `<data dir>/attachments/<session>/
 *   <message id>/<n>-<name>` (infra/attachments-store.ts, never through a link), and recorded with its `path`; the model activity then gives text files in full and
 *   images as image parts in the current turn (activities/llm/attachments.ts), and clean history strips them
 *   later with the placeholder;
 * - a Google Drive file (`driveDataRef.driveFileId`) is recorded as a link only (`url`): Kesoku has no Drive
 *   access, the model is told the file is a reference;
 * - a file over the size limit, one that could not be fetched, one without content Kesoku can fetch (neither
 *   kind of reference) and any beyond the {@link LIMITS.maxAttachments}th is refused: not stored, not recorded,
 *   and listed in {@link StagedAttachments.refused} with a sentence for the user.
 *
 * The Chat API announces no size, so the limit is checked against the response's Content-Length and again while
 * the bytes stream in; a partly written file is removed. A file already staged (an event Chat sent again) is
 * not downloaded again: files are written under a temporary name and renamed when complete.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { z } from 'zod';
import { LIMITS } from '../../domain/inbound.ts';
import type { Attachment } from '../../domain/message.ts';
import type { Logger } from '../../infra/logger.ts';
import {
  AttachmentTooLargeError,
  MessageAttachments,
  removeEmptyMessageDir,
} from '../../infra/attachments-store.ts';
import { attachmentFileName } from '../../infra/workspace.ts';
import { apiErrorOf, type ChatApi } from './api.ts';
import { DEFAULT_ATTACHMENT_MAX_BYTES } from './config.ts';
import { formatBytes } from './format.ts';

/** The part of a Chat API Attachment Kesoku reads (other fields are kept but ignored). */
export const chatAttachmentSchema = z.looseObject({
  /** `spaces/S/messages/M/attachments/A`. */
  name: z.string().optional(),
  /** The original file name. */
  contentName: z.string().optional(),
  contentType: z.string().optional(),
  /** `UPLOADED_CONTENT` or `DRIVE_FILE`. */
  source: z.string().optional(),
  attachmentDataRef: z.looseObject({ resourceName: z.string().optional() }).optional(),
  driveDataRef: z.looseObject({ driveFileId: z.string().optional() }).optional(),
});

/** An attachment as Chat sent it in the event. */
export type ChatAttachment = z.infer<typeof chatAttachmentSchema>;

/** A file that was not taken, and why (a sentence fragment for the user and the prompt). */
export interface RefusedAttachment {
  name: string;
  reason: string;
}

/** What {@link stageChatAttachments} made of a message's attachments. */
export interface StagedAttachments {
  /** Records for `metadata.attachments`: stored files (`path`, `size`) and Drive links (`url`). */
  attachments: Attachment[];
  refused: RefusedAttachment[];
}

/** Where and how attachments are staged. */
export interface ChatStagingOptions {
  /** `KESOKU_DATA_DIR`: files go into the attachment directories under it. */
  dataDir: string;
  /** The session the message goes to (its workspace). */
  sessionId: string;
  /** The Kesoku message id (the folder under `attachments/`). */
  messageId: string;
  /** Largest file downloaded, bytes. Default {@link DEFAULT_ATTACHMENT_MAX_BYTES}. */
  maxBytes?: number;
  /** Per download, ms. Default 30 s. */
  timeoutMs?: number;
  logger: Logger;
}

/** Why a download was refused: over the size limit, or anything else (auth, network, HTTP error). */
class TooLargeError extends Error {}

/** The file name of a Chat attachment: its `contentName`, else the last segment of its resource name. */
export function attachmentNameOf(a: ChatAttachment, index: number): string {
  const name = a.contentName?.trim() || a.name?.split('/').pop()?.trim();
  return name ? name.slice(0, 255) : `attachment-${index + 1}`;
}

/** A link to a Drive file (opened by whoever has access to it; Kesoku does not). */
export function driveLinkOf(fileId: string): string {
  return `https://drive.google.com/open?id=${encodeURIComponent(fileId)}`;
}

/**
 * Stages every attachment of a message (see the module comment). Never throws for a file: a failure refuses
 * that file and is logged.
 */
export async function stageChatAttachments(
  api: ChatApi,
  list: readonly ChatAttachment[],
  opts: ChatStagingOptions,
): Promise<StagedAttachments> {
  const maxBytes = opts.maxBytes ?? DEFAULT_ATTACHMENT_MAX_BYTES;
  const attachments: Attachment[] = [];
  const refused: RefusedAttachment[] = [];
  let store: MessageAttachments | undefined;
  let stored = false;
  try {
    for (const [i, a] of list.entries()) {
      const name = attachmentNameOf(a, i);
      const contentType = a.contentType?.trim() || undefined;
      const record: Attachment = { name, ...(contentType ? { content_type: contentType } : {}) };
      if (attachments.length >= LIMITS.maxAttachments) {
        refused.push({ name, reason: `only ${LIMITS.maxAttachments} files are taken per message` });
        continue;
      }
      const resourceName = a.attachmentDataRef?.resourceName;
      const driveFileId = a.driveDataRef?.driveFileId;
      if (resourceName) {
        const file = attachmentFileName(i, name);
        try {
          store ??= await MessageAttachments.open(opts.dataDir, opts.sessionId, opts.messageId, {
            create: true,
          });
          const size = await download(api, resourceName, store, file, maxBytes, opts.timeoutMs ?? 30_000);
          attachments.push({ ...record, size, path: store.pathOf(file) });
          stored = true;
        } catch (err) {
          const tooLarge = err instanceof TooLargeError || err instanceof AttachmentTooLargeError;
          opts.logger.warn(
            { messageId: opts.messageId, attachment: name, err: String(err), status: apiErrorOf(err).status },
            'google chat attachment not downloaded',
          );
          refused.push({
            name,
            reason: tooLarge
              ? `it is larger than the ${formatBytes(maxBytes)} limit`
              : 'it could not be fetched from Google Chat',
          });
        }
      } else if (driveFileId) {
        attachments.push({ ...record, url: driveLinkOf(driveFileId) });
      } else {
        refused.push({ name, reason: 'it is neither a file uploaded to Chat nor a Google Drive file' });
      }
    }
  } finally {
    await store?.close();
    // A message none of whose files could be stored leaves no empty directory behind.
    if (store && !stored) await removeEmptyMessageDir(opts.dataDir, opts.sessionId, opts.messageId);
  }
  return { attachments, refused };
}

/** Downloads `resourceName` into `store` as `file` (see the module comment). @returns its size in bytes */
async function download(
  api: ChatApi,
  resourceName: string,
  store: MessageAttachments,
  file: string,
  maxBytes: number,
  timeoutMs: number,
): Promise<number> {
  const existing = await store.existing(file);
  if (existing) return existing.size;
  const res = await api.media.download(
    { resourceName, alt: 'media' },
    { responseType: 'stream', timeout: timeoutMs },
  );
  const headers = res.headers as unknown as { get?(name: string): string | null } | undefined;
  const announced = Number(headers?.get?.('content-length') ?? NaN);
  const body = res.data as unknown as Readable | WebReadableStream<Uint8Array>;
  const source = body instanceof Readable ? body : Readable.fromWeb(body);
  if (announced > maxBytes) {
    source.destroy();
    throw new TooLargeError(`the file is ${announced} bytes, over the ${maxBytes}-byte limit`);
  }
  const { size } = await store.write(file, source, { existing: 'replace', maxBytes });
  return size;
}
