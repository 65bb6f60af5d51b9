/**
 * An MCP `tools/call` result as a Kesoku tool result: the content blocks as text for the model (text as it is;
 * images, audio and binary resources named by type and size and kept beside the call's full output; kept PNG,
 * JPEG, GIF and WebP images are also returned as `images`, which the model sees after the turn's results), `structuredContent` as JSON when there is no text, `isError: true` as
 * a failed result (❌ on channels) whose text the model reads, and a result longer than the model's share cut
 * with a note naming the file that keeps all of it.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Attachment } from '../../domain/message.ts';
import { clip, type ToolResult } from '../tools/tool.ts';
import { utf8CutBack } from '../tools/utf8.ts';

/** Where and how much of a result is kept. */
export interface ResultLimits {
  /** Bytes of text the model gets; beyond it the text is cut with a note. */
  maxModelOutputBytes: number;
  /** Directory for the full result and binary content (the session's tool-output directory); none: not kept. */
  outputDir?: string;
  /** The tool call's id: names the kept files. */
  callId?: string;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'audio/wav': '.wav',
  'audio/mpeg': '.mp3',
};

function sizeOf(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function stemOf(callId: string | undefined): string {
  return callId
    ? callId
        .replace(/[^A-Za-z0-9._-]/g, '_')
        .replace(/^\./, '_')
        .slice(0, 200)
    : randomUUID();
}

/** Writes `data` under the output dir; @returns its path, or undefined when nothing could be kept. */
async function keep(
  limits: ResultLimits,
  suffix: string,
  data: Buffer | string,
): Promise<string | undefined> {
  if (limits.outputDir === undefined) return undefined;
  const file = path.resolve(limits.outputDir, `${stemOf(limits.callId)}${suffix}`);
  try {
    await mkdir(limits.outputDir, { recursive: true, mode: 0o700 });
    await writeFile(file, data, { mode: 0o600 });
    return file;
  } catch {
    return undefined;
  }
}

/** Image types a model is shown (the others are only named). */
const SHOWN_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * One binary block named for the model, its bytes kept. A kept image of a shown type is also returned as an
 * attachment, which the model activity shows the model with the current turn's results.
 */
async function binaryBlock(
  kind: 'image' | 'audio' | 'resource',
  mimeType: string | undefined,
  base64: string,
  index: number,
  limits: ResultLimits,
  label?: string,
): Promise<{ text: string; image?: Attachment }> {
  const data = Buffer.from(base64, 'base64');
  const ext = (mimeType && EXTENSIONS[mimeType]) ?? '.bin';
  const kept = await keep(limits, `.${index}${ext}`, data);
  const what = [label, mimeType ?? 'unknown type', sizeOf(data.length)].filter(Boolean).join(', ');
  if (kind === 'image' && kept !== undefined && mimeType !== undefined && SHOWN_IMAGE_TYPES.has(mimeType))
    return {
      text: `[image: ${what}; kept at ${kept}; attached after this turn's tool results]`,
      image: { name: path.basename(kept), content_type: mimeType, size: data.length, path: kept },
    };
  return { text: `[${kind}: ${what}${kept ? `; kept at ${kept}` : ''}; not shown to the model]` };
}

/** The text of each content block, in order. */
async function blockTexts(
  raw: CallToolResult,
  limits: ResultLimits,
): Promise<{ texts: string[]; binaries: number; images: Attachment[] }> {
  const texts: string[] = [];
  const images: Attachment[] = [];
  let binaries = 0;
  for (const [i, block] of raw.content.entries()) {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        break;
      case 'image':
      case 'audio': {
        binaries++;
        const b = await binaryBlock(block.type, block.mimeType, block.data, i, limits);
        texts.push(b.text);
        if (b.image) images.push(b.image);
        break;
      }
      case 'resource_link':
        texts.push(
          `[resource: ${block.name} <${block.uri}>${block.description ? ` — ${block.description}` : ''}]`,
        );
        break;
      case 'resource': {
        const r = block.resource;
        if ('text' in r && typeof r.text === 'string') texts.push(`[resource <${r.uri}>]\n${r.text}`);
        else if ('blob' in r && typeof r.blob === 'string') {
          binaries++;
          texts.push((await binaryBlock('resource', r.mimeType, r.blob, i, limits, `<${r.uri}>`)).text);
        }
        break;
      }
    }
  }
  if (texts.length === 0 && raw.structuredContent !== undefined)
    texts.push(JSON.stringify(raw.structuredContent, null, 2));
  return { texts, binaries, images };
}

/** `text` cut to `max` bytes of UTF-8, with the note; @returns the text and whether it was cut. */
async function bounded(
  text: string,
  limits: ResultLimits,
): Promise<{ text: string; fullOutputPath?: string }> {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limits.maxModelOutputBytes) return { text };
  const fullOutputPath = await keep(limits, '.txt', bytes);
  const cut = utf8CutBack(bytes, limits.maxModelOutputBytes);
  const where = fullOutputPath ? `; the whole result is kept at ${fullOutputPath}` : '';
  return {
    text: `${bytes.subarray(0, cut).toString('utf8')}\n[… result cut: the first ${cut} of ${bytes.length} bytes are shown${where}]`,
    ...(fullOutputPath ? { fullOutputPath } : {}),
  };
}

/**
 * The tool result for an MCP call's result (see the module comment).
 * @param label the tool as people see it, `<server> › <tool>`, for summaries
 * @returns `ok: false` for `isError: true`
 */
export async function mcpToolResult(
  raw: CallToolResult,
  label: string,
  limits: ResultLimits,
): Promise<ToolResult> {
  const { texts, binaries, images } = await blockTexts(raw, limits);
  const joined = texts.join('\n');
  const failed = raw.isError === true;
  const { text, fullOutputPath } = await bounded(
    failed ? `Error: ${joined || `${label} failed`}` : joined,
    limits,
  );
  const firstLine =
    joined
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  const summary = failed
    ? clip(`error: ${firstLine || 'the tool reported a failure'}`)
    : clip(firstLine || (binaries > 0 ? `${binaries} binary item${binaries === 1 ? '' : 's'}` : 'no output'));
  return {
    content: text === '' ? '(no output)' : text,
    summary,
    ok: !failed,
    ...(fullOutputPath ? { fullOutputPath } : {}),
    ...(images.length > 0 ? { images } : {}),
  };
}
