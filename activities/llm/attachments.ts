/**
 * The current turn's attachments, read for the model. The user message that triggered the turn carries its
 * attachments (clean history strips them from every other message); each file stored inside the session's
 * workspace is read here and given to the model in full:
 * - text files (text/*, JSON, XML, YAML, CSV, scripts, or unknown types whose first bytes are UTF-8 without
 *   NUL) up to {@link MAX_INLINE_TEXT_BYTES} are appended to the message text in a fenced block; larger ones
 *   are cut there, with a note that `read_file` opens the rest;
 * - images (PNG, JPEG, GIF, WebP) up to {@link MAX_IMAGE_BYTES} become image parts (when `images` is on);
 * - anything else is named with its path in the workspace, so a tool can open it.
 * Files outside the workspace, symbolic links, missing or unreadable ones are named as not available, a
 * link-only attachment (`url`) with its link. Never throws for a file.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Attachment } from '../../domain/message.ts';
import type { ProviderImage, ProviderInput, ProviderMessage } from '../../domain/provider-messages.ts';
import { isInside } from '../../infra/workspace.ts';

/** Largest text given to the model inline, in bytes (64 KiB). */
export const MAX_INLINE_TEXT_BYTES = 64 * 1024;
/** Largest image sent as an image part, in bytes (5 MiB, the smallest of the common providers' limits). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};
const TEXT_TYPE =
  /^(text\/|application\/(json|xml|x-yaml|yaml|csv|javascript|x-sh|x-python|toml|sql)\b)|\+(json|xml)$/;

/** A JSON.stringify replacer that writes image bytes as their count (token estimates, comparisons). */
export function imageSize(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? `<${value.byteLength} bytes>` : value;
}

function mimeOf(a: Attachment): string | undefined {
  const t = a.content_type?.toLowerCase().split(';')[0]?.trim();
  return t === '' || t === 'application/octet-stream' ? undefined : t;
}

function imageTypeOf(a: Attachment): string | null {
  const type = mimeOf(a);
  if (type !== undefined) return Object.values(IMAGE_TYPES).includes(type) ? type : null;
  return IMAGE_TYPES[path.extname(a.name).toLowerCase()] ?? null;
}

function looksLikeText(a: Attachment, bytes: Uint8Array): boolean {
  const type = mimeOf(a);
  if (type !== undefined) return TEXT_TYPE.test(type);
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return false;
  try {
    // The last bytes may cut a character in two; they do not decide.
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 4)));
    return true;
  } catch {
    return false;
  }
}

async function readHead(file: string, bytes: number): Promise<Uint8Array> {
  const handle = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Reads one attachment: the text to add to the prompt and, for an image, the image part. */
async function readAttachment(
  a: Attachment,
  workspaceDir: string,
  images: boolean,
): Promise<{ text: string; image?: ProviderImage }> {
  const label = `${a.name}${a.content_type ? ` (${a.content_type})` : ''}`;
  const file = a.path;
  if (file === undefined || !isInside(workspaceDir, file)) {
    return {
      text:
        a.url !== undefined
          ? `[Attachment ${label}: a link, not downloaded: ${a.url}]`
          : `[Attachment ${label}: not available to read]`,
    };
  }
  const where = path.relative(workspaceDir, file);
  try {
    // The file Kesoku stored, not whatever a symbolic link put in its place would point to.
    const stat = await fs.lstat(file);
    if (!stat.isFile()) return { text: `[Attachment ${label}: not a regular file at ${where}]` };
    const imageType = imageTypeOf(a);
    if (imageType !== null) {
      if (!images)
        return {
          text: `[Attachment ${label}: an image, saved in the working directory at ${where}; not shown to this model]`,
        };
      if (stat.size > MAX_IMAGE_BYTES)
        return {
          text: `[Attachment ${label}: an image of ${stat.size} bytes at ${where}, too large to show]`,
        };
      const data = await fs.readFile(file);
      return {
        text: `[Attachment ${label}: the image attached below, saved in the working directory at ${where}]`,
        image: { name: a.name, mediaType: imageType, data: new Uint8Array(data) },
      };
    }
    const bytes = await readHead(file, Math.min(stat.size, MAX_INLINE_TEXT_BYTES));
    if (!looksLikeText(a, bytes))
      return {
        text: `[Attachment ${label}: ${stat.size} bytes, saved in the working directory at ${where}]`,
      };
    const cut = stat.size > MAX_INLINE_TEXT_BYTES;
    const body = new TextDecoder('utf-8').decode(bytes);
    const fence = body.includes('```') ? '~~~~' : '```';
    const note = cut
      ? `; the first ${MAX_INLINE_TEXT_BYTES} of ${stat.size} bytes, read_file opens the rest`
      : '';
    return {
      text: `[Attachment ${label}, saved in the working directory at ${where}${note}:]\n${fence}\n${body}\n${fence}`,
    };
  } catch {
    return { text: `[Attachment ${label}: could not be read at ${where}]` };
  }
}

/**
 * Returns `input` with the attachments of its user messages read in (see the module comment); `images`
 * false names images instead of sending them. No message keeps an `attachments` field.
 */
export async function withAttachments(
  input: ProviderInput,
  workspaceDir: string,
  opts: { images: boolean },
): Promise<ProviderInput> {
  const messages: ProviderMessage[] = [];
  for (const m of input.messages) {
    if (m.role !== 'user' || m.attachments === undefined) {
      messages.push(m);
      continue;
    }
    const { attachments, ...rest } = m;
    const parts: string[] = [];
    const images: ProviderImage[] = [...(rest.images ?? [])];
    for (const a of attachments) {
      const read = await readAttachment(a, workspaceDir, opts.images);
      parts.push(read.text);
      if (read.image) images.push(read.image);
    }
    const content = [rest.content, ...parts].filter((p) => p !== '').join('\n\n');
    messages.push(images.length > 0 ? { role: 'user', content, images } : { role: 'user', content });
  }
  return { system: input.system, messages };
}
