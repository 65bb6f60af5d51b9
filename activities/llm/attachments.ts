/**
 * The current turn's attachments, read for the model. The user message that triggered the turn carries its
 * attachments (clean history strips them from every other message); each file stored in the session's
 * attachment directory (infra/attachments-store.ts) is read here, never through a link, and given to the model
 * in full:
 * - text files (text/*, JSON, XML, YAML, CSV, scripts, or unknown types whose first bytes are UTF-8 without
 *   NUL) up to {@link MAX_INLINE_TEXT_BYTES} are appended to the message text in a fenced block; larger ones
 *   are cut there, with a note that `read_file` opens the rest;
 * - images (PNG, JPEG, GIF, WebP) up to {@link MAX_IMAGE_BYTES} become image parts (when `images` is on);
 * - anything else is named with its path as seen from the workspace (`attachments/<message>/<file>`), so a tool
 *   can open it.
 * Files outside the session's attachment directory, symbolic links anywhere on the way, missing or unreadable
 * ones are named as not available, a link-only attachment (`url`) with its link. Never throws for a file.
 */
import path from 'node:path';
import type { Attachment } from '../../domain/message.ts';
import type { ProviderImage, ProviderInput, ProviderMessage } from '../../domain/provider-messages.ts';
import { readStoredAttachment, readToolOutputFile } from '../../infra/attachments-store.ts';
import { attachmentsDirOfWorkspace, pathFromWorkspace } from '../../infra/workspace.ts';
import { fenceFor, singleLine } from '../../domain/prompt-safety.ts';

/** Largest text given to the model inline, in bytes (64 KiB). */
export const MAX_INLINE_TEXT_BYTES = 64 * 1024;
/** Largest image sent as an image part, in bytes (5 MiB, the smallest of the common providers' limits). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Most images of tool results shown in one model request; later ones are only named in their results. */
export const MAX_TOOL_IMAGES = 8;

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

/** Reads one attachment: the text to add to the prompt and, for an image, the image part. */
async function readAttachment(
  a: Attachment,
  workspaceDir: string,
  images: boolean,
): Promise<{ text: string; image?: ProviderImage }> {
  const label = singleLine(`${a.name}${a.content_type ? ` (${a.content_type})` : ''}`);
  const file = a.path;
  const attachmentsDir = attachmentsDirOfWorkspace(workspaceDir);
  const notAvailable = {
    text:
      a.url !== undefined
        ? `[Attachment ${label}: a link, not downloaded: ${a.url}]`
        : `[Attachment ${label}: not available to read]`,
  };
  if (file === undefined) return notAvailable;
  // The path a command in the workspace opens it by: the workspace's `attachments` link leads to the store.
  const where = pathFromWorkspace(workspaceDir, file);
  try {
    const imageType = imageTypeOf(a);
    const read = await readStoredAttachment(
      { workspaceDir, ...(attachmentsDir !== undefined ? { attachmentsDir } : {}) },
      file,
      imageType !== null && images ? MAX_IMAGE_BYTES + 1 : MAX_INLINE_TEXT_BYTES,
    );
    if (read === null) return notAvailable;
    const stat = { size: read.size };
    if (imageType !== null) {
      if (!images)
        return {
          text: `[Attachment ${label}: an image, saved in the working directory at ${where}; not shown to this model]`,
        };
      if (stat.size > MAX_IMAGE_BYTES)
        return {
          text: `[Attachment ${label}: an image of ${stat.size} bytes at ${where}, too large to show]`,
        };
      return {
        text: `[Attachment ${label}: the image attached below, saved in the working directory at ${where}]`,
        image: { name: a.name, mediaType: imageType, data: new Uint8Array(read.bytes) },
      };
    }
    const bytes = read.bytes;
    if (!looksLikeText(a, bytes))
      return {
        text: `[Attachment ${label}: ${stat.size} bytes, saved in the working directory at ${where}]`,
      };
    const cut = stat.size > MAX_INLINE_TEXT_BYTES;
    const body = new TextDecoder('utf-8').decode(bytes);
    const fence = fenceFor(body);
    const note = cut
      ? `; the first ${MAX_INLINE_TEXT_BYTES} of ${stat.size} bytes, read_file opens the rest`
      : '';
    return {
      text: `[Attachment ${label}, saved in the working directory at ${where}${note}:]\n${fence}\n${body}\n${fence}`,
    };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EINVAL' || code === 'EISDIR' || code === 'ELOOP')
      return { text: `[Attachment ${label}: not a regular file at ${where}]` };
    return { text: `[Attachment ${label}: could not be read at ${where}]` };
  }
}

/**
 * The images a tool returned (kept in the session's tool-output directory), read for the model; those not there,
 * links, too large or unreadable are left out (the result's text names them with their path).
 */
async function toolImages(
  attachments: readonly Attachment[],
  workspaceDir: string,
): Promise<ProviderImage[]> {
  const images: ProviderImage[] = [];
  for (const a of attachments) {
    const mediaType = imageTypeOf(a);
    if (mediaType === null || a.path === undefined) continue;
    try {
      const read = await readToolOutputFile(workspaceDir, a.path, MAX_IMAGE_BYTES + 1);
      if (read === null || read.size > MAX_IMAGE_BYTES) continue;
      images.push({ name: a.name, mediaType, data: new Uint8Array(read.bytes) });
    } catch {
      // Gone, replaced by a link or unreadable: named in the result's text only.
    }
  }
  return images;
}

/**
 * The user message that shows the model the images of a run of tool results: one line per result with images,
 * then the images (providers take images in user messages everywhere, in tool results only in some).
 */
function toolImagesMessage(
  shown: { name: string; callId: string; count: number }[],
  images: ProviderImage[],
) {
  const lines = shown.map(
    (s) =>
      `[${s.count === 1 ? 'The image' : `The ${s.count} images`} that tool ${singleLine(s.name)} returned (call ${singleLine(s.callId)}), attached below]`,
  );
  return { role: 'user' as const, content: lines.join('\n'), images };
}

/**
 * Returns `input` with the attachments of its user messages read in (see the module comment), and, for a model
 * that takes images, the images the current turn's tool results returned (those after the last user message)
 * in a user message after each run of results; `images` false names images instead of sending them. No
 * message keeps an `attachments` field.
 */
export async function withAttachments(
  input: ProviderInput,
  workspaceDir: string,
  opts: { images: boolean },
): Promise<ProviderInput> {
  const messages: ProviderMessage[] = [];
  const lastUser = input.messages.findLastIndex((m) => m.role === 'user');
  let shown: { name: string; callId: string; count: number }[] = [];
  let pending: ProviderImage[] = [];
  let toolImageCount = 0;
  const flushToolImages = () => {
    if (pending.length > 0) messages.push(toolImagesMessage(shown, pending));
    shown = [];
    pending = [];
  };
  for (const [i, m] of input.messages.entries()) {
    if (m.role === 'tool') {
      const { attachments, ...result } = m;
      messages.push(result);
      if (opts.images && i > lastUser && attachments !== undefined) {
        const room = MAX_TOOL_IMAGES - toolImageCount;
        const images = room > 0 ? (await toolImages(attachments, workspaceDir)).slice(0, room) : [];
        toolImageCount += images.length;
        if (images.length > 0) {
          shown.push({ name: m.name, callId: m.tool_call_id, count: images.length });
          pending.push(...images);
        }
      }
      continue;
    }
    flushToolImages();
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
  flushToolImages();
  return { system: input.system, messages };
}
