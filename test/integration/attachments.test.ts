/**
 * Attachments reach the model: a file posted over REST is stored in the session's workspace (where read_file
 * opens it), named in the current turn's prompt with its full content (text) or as an image part (images),
 * and stripped to the placeholder in later turns. Real stack: API server, Temporal dev server, Postgres, the
 * real AI SDK against the fake model server, which records what it received.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../api/server.ts';
import { attachmentDirFor } from '../../infra/workspace.ts';
import type { FakeRequest, WireMessage } from '../fakes/model-server.ts';
import { startApiFor } from '../api/support.ts';
import { startStack, uniqueId, type Stack } from '../support/stack.ts';

let stack: Stack;
let api: ApiServer;
beforeAll(async () => {
  stack = await startStack();
  api = await startApiFor(stack, { app: { dataDir: stack.dataDir } });
});
afterAll(async () => {
  await api?.close();
  await stack?.stop();
});

/** A 1×1 PNG. */
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

async function post(
  session: string,
  body: Record<string, unknown>,
): Promise<{ status: number; type: string | null; json: Record<string, unknown> }> {
  const res = await fetch(`${api.url}/v1/sessions/${session}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    json: (await res.json()) as Record<string, unknown>,
  };
}

const lastUser = (r: FakeRequest | undefined): WireMessage | undefined =>
  [...(r?.body?.messages ?? [])].reverse().find((m) => m.role === 'user');

/**
 * Posts message `id` with `notes.txt` holding `text` and waits for its turn, with umask 077 as Kesoku's processes
 * run (private files): the API stores the attachment for its owner only.
 */
async function postNotesOwnerOnly(session: string, id: string, text: string) {
  const umask = process.umask(0o077);
  try {
    return await post(session, {
      id,
      content: 'Read my notes with the shell.',
      attachments: [
        { name: 'notes.txt', content_type: 'text/plain', data: Buffer.from(text).toString('base64') },
      ],
      wait: 60,
    });
  } finally {
    process.umask(umask);
  }
}

describe('REST attachments reach the model', () => {
  it('a shell command in the sandbox can read an attachment the API stored (as root: given to the sandbox user)', async () => {
    const session = uniqueId('s');
    const id = uniqueId('m');
    const rel = `attachments/${id}/0-notes.txt`;
    stack.script(
      session,
      { kind: 'tool_calls', calls: [{ name: 'run_shell_command', arguments: { command: `cat ${rel}` } }] },
      { kind: 'text', text: 'Read it.' },
    );
    const r = await postNotesOwnerOnly(session, id, 'secret-sauce\n');
    expect(r.status).toBe(200);
    const result = (await stack.messages(session)).find((m) => m.type === 'tool_result');
    expect(result?.content).toContain('secret-sauce');
    expect(result?.content).not.toContain('Permission denied');
  });

  it('a shell command in the sandbox can read an attachment by the absolute path in its metadata', async () => {
    const session = uniqueId('s');
    const id = uniqueId('m');
    const file = path.join(attachmentDirFor(stack.dataDir, session, id), '0-notes.txt');
    stack.script(
      session,
      { kind: 'tool_calls', calls: [{ name: 'run_shell_command', arguments: { command: `cat ${file}` } }] },
      { kind: 'text', text: 'Read it.' },
    );
    const r = await postNotesOwnerOnly(session, id, 'by-full-path\n');
    expect(r.status).toBe(200);
    const message = r.json.message as { metadata: { attachments: { path: string }[] } };
    expect(message.metadata.attachments[0]?.path).toBe(file);
    const result = (await stack.messages(session)).find((m) => m.type === 'tool_result');
    expect(result?.content).toContain('by-full-path');
    expect(result?.content).not.toContain('Permission denied');
  });

  it('a text file: stored in the workspace, named and given in full in the current turn, readable with read_file', async () => {
    const session = uniqueId('s');
    const id = uniqueId('m');
    const csv = 'city,temp\nTokyo,21\nOsaka,23\n';
    const rel = `attachments/${id}/0-report.csv`;
    stack.script(
      session,
      { kind: 'tool_calls', calls: [{ name: 'read_file', arguments: { path: rel } }] },
      { kind: 'text', text: 'Tokyo is 21 degrees.' },
    );
    const r = await post(session, {
      id,
      content: 'What is the temperature in Tokyo?',
      attachments: [
        { name: 'report.csv', content_type: 'text/csv', data: Buffer.from(csv).toString('base64') },
      ],
      wait: 60,
    });
    expect(r.status).toBe(200);
    const message = r.json.message as { metadata: { attachments: Record<string, unknown>[] } };
    const file = path.join(attachmentDirFor(stack.dataDir, session, id), '0-report.csv');
    expect(message.metadata.attachments).toEqual([
      { name: 'report.csv', content_type: 'text/csv', size: csv.length, path: file },
    ]);
    expect(fs.readFileSync(file, 'utf8')).toBe(csv);

    const [first, second] = stack.requestsOf(session);
    const prompt = lastUser(first)?.content;
    expect(typeof prompt).toBe('string');
    expect(prompt).toContain('What is the temperature in Tokyo?');
    expect(prompt).toContain(`[Attachment report.csv (text/csv), saved in the working directory at ${rel}:]`);
    expect(prompt).toContain(csv);
    // read_file opened the stored file.
    const toolMessage = second?.body?.messages?.find((m) => m.role === 'tool');
    expect(JSON.stringify(toolMessage?.content)).toContain('Tokyo,21');
    expect((r.json.reply as { content: string }).content).toBe('Tokyo is 21 degrees.');

    // Next turn: the attachment is stripped from history, with the placeholder.
    const next = await post(session, { content: 'thanks', wait: 60 });
    expect(next.status).toBe(200);
    const history = stack.requestsOf(session).at(-1)?.body?.messages ?? [];
    const earlier = history.find(
      (m) => m.role === 'user' && JSON.stringify(m.content).includes('temperature in Tokyo'),
    );
    expect(earlier?.content).toContain('[Attachments stripped from history: report.csv]');
    expect(earlier?.content).not.toContain('Osaka,23');
  });

  it('an image: an image part in the current turn, only the placeholder afterwards; an attachment-only message works', async () => {
    const session = uniqueId('s');
    const id = uniqueId('m');
    stack.script(session, { kind: 'text', text: 'A single pixel.' });
    const r = await post(session, {
      id,
      content: '',
      attachments: [{ name: 'pixel.png', content_type: 'image/png', data: PIXEL_PNG }],
      wait: 60,
    });
    expect(r.status).toBe(200);
    const content = lastUser(stack.requestsOf(session)[0])?.content;
    expect(Array.isArray(content)).toBe(true);
    const parts = content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(parts.find((p) => p.type === 'text')?.text).toContain(
      `pixel.png (image/png): the image attached below, saved in the working directory at attachments/${id}/0-pixel.png`,
    );
    expect(parts.find((p) => p.type === 'image_url')?.image_url?.url).toBe(
      `data:image/png;base64,${PIXEL_PNG}`,
    );

    await post(session, { content: 'and now?', wait: 60 });
    const history = stack.requestsOf(session).at(-1)?.body?.messages ?? [];
    expect(JSON.stringify(history)).not.toContain('image_url');
    expect(JSON.stringify(history)).toContain('[Attachments stripped from history: pixel.png]');
  });

  it('a repeated message id with other file bytes answers 409 and keeps the first file', async () => {
    const session = uniqueId('s');
    const id = uniqueId('m');
    const file = (text: string) => ({
      name: 'notes.txt',
      content_type: 'text/plain',
      data: Buffer.from(text).toString('base64'),
    });
    expect((await post(session, { id, content: 'see file', attachments: [file('first!')] })).status).toBe(
      202,
    );
    const changed = await post(session, { id, content: 'see file', attachments: [file('other!')] });
    expect(changed.status).toBe(409);
    expect(changed.json.detail).toContain('different attachments');
    const stored = path.join(attachmentDirFor(stack.dataDir, session, id), '0-notes.txt');
    expect(fs.readFileSync(stored, 'utf8')).toBe('first!');
    const again = await post(session, { id, content: 'see file', attachments: [file('first!')] });
    expect(again.status).toBe(202);
    expect(again.json.duplicate).toBe(true);
    expect(fs.readdirSync(path.dirname(stored))).toEqual(['0-notes.txt']);
  });

  it('a link-only attachment is named with its link, so an attachment-only message never reaches the model empty', async () => {
    const session = uniqueId('s');
    stack.script(session, { kind: 'text', text: 'I see a link.' });
    const r = await post(session, {
      content: '',
      attachments: [{ name: 'a.png', url: 'https://example.com/a.png' }],
      wait: 60,
    });
    expect(r.status).toBe(200);
    const content = String(lastUser(stack.requestsOf(session)[0])?.content);
    expect(content.split('\n\n[Runtime Context]')[0]).toBe(
      '[Attachment a.png: a link, not downloaded: https://example.com/a.png]',
    );
  });

  it('a model server that refuses images: the turn is answered once more with the image named instead', async () => {
    const session = uniqueId('s');
    const belongs = (q: FakeRequest) => stack.requestsOf(session).includes(q);
    stack.fake.setGuard((q) =>
      belongs(q) && JSON.stringify(q.body?.messages ?? []).includes('image_url')
        ? {
            kind: 'error',
            status: 400,
            body: {
              error: { message: 'image input is not supported by this model', type: 'invalid_request_error' },
            },
          }
        : undefined,
    );
    try {
      stack.script(session, { kind: 'text', text: 'I cannot see images, but I know it is pixel.png.' });
      const r = await post(session, {
        content: 'what is this?',
        attachments: [{ name: 'pixel.png', content_type: 'image/png', data: PIXEL_PNG }],
        wait: 60,
      });
      expect(r.status).toBe(200);
      expect((r.json.message as { status: string }).status).toBe('processed');
      const requests = stack.requestsOf(session);
      expect(requests).toHaveLength(2);
      expect(lastUser(requests[1])?.content).toContain(
        'pixel.png (image/png): an image, saved in the working directory',
      );
    } finally {
      stack.fake.setGuard(undefined);
    }
  });
});

describe('bad attachment input is a 400 problem and stores nothing', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['data that is not base64', { name: 'a.txt', data: 'not base64!' }],
    ['data and url together', { name: 'a.txt', data: 'aGk=', url: 'https://example.com/a.txt' }],
    ['data over the size limit', { name: 'a.txt', data: Buffer.alloc(185 * 1024).toString('base64') }],
    ['a path given by the client', { name: 'a.txt', path: '/etc/passwd' }],
  ];
  for (const [label, attachment] of cases) {
    it(label, async () => {
      const session = uniqueId('s');
      const r = await post(session, { content: 'x', attachments: [attachment] });
      expect(r.status).toBe(400);
      expect(r.type).toContain('application/problem+json');
      expect(String(r.json.detail)).toContain('attachments');
      expect(fs.existsSync(path.join(stack.dataDir, 'workspaces', session))).toBe(false);
    });
  }
});
