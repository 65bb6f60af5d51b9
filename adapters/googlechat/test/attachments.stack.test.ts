/**
 * Google Chat attachments against the fake (adapters/googlechat/attachments.ts): uploaded files are downloaded
 * with media.download as the app's service account, stored in the session's workspace and given to the model
 * like REST and Discord attachments (text in full, images as image parts, stripped with a placeholder later);
 * a Drive file is passed on as a link; a file over the limit is refused with a message; an event with a bad
 * token, or a download the API refuses, stores nothing. The model's side is checked on the requests the fake
 * model server received.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleChat } from '../channel.ts';
import type { IngressOutcome } from '../ingress.ts';
import { getMessage } from '../../../db/messages.ts';
import { getSession } from '../../../db/sessions.ts';
import { createLogger } from '../../../infra/logger.ts';
import { attachmentDirFor } from '../../../infra/workspace.ts';
import type { FakeRequest, WireMessage } from '../../../test/fakes/model-server.ts';
import { driveAttachment, messageEvent, type FakeChatMessage } from './fake-server.ts';
import { startGoogleChatBench, type GoogleChatBench } from './harness.ts';

let bench: GoogleChatBench;
beforeAll(async () => {
  bench = await startGoogleChatBench();
});
afterAll(async () => bench?.stop());
afterEach(() => bench.fake.clearFailures());

/** A 1×1 PNG. */
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A fresh space and thread, with the session and inbound ids Kesoku gives them. */
function place(messageId: string) {
  const id = `S${randomBytes(6).toString('hex')}`;
  const space = `spaces/${id}`;
  return {
    space,
    thread: `${space}/threads/T1`,
    sessionId: `googlechat:${id}:T1`,
    inboundId: `googlechat-${id}-${messageId}`,
  };
}

const lastUser = (r: FakeRequest | undefined): WireMessage | undefined =>
  [...(r?.body?.messages ?? [])].reverse().find((m) => m.role === 'user');
const textOf = (m: FakeChatMessage) => m.text ?? '';
const mediaCalls = (resourceName: string) =>
  bench.fake.calls.filter((c) => c.route === 'media' && c.path === `/v1/media/${resourceName}`);

describe('Google Chat attachments', () => {
  it('gives a text file in full and an image as an image part, a Drive file as a link; stripped later', async () => {
    const p = place('A1');
    const notes = 'city,temp\nTokyo,21\nOsaka,23\n';
    const csv = bench.fake.addMedia({ name: 'report.csv', contentType: 'text/csv', bytes: notes });
    const png = bench.fake.addMedia({
      name: 'pixel.png',
      contentType: 'image/png',
      bytes: Buffer.from(PIXEL_PNG, 'base64'),
    });
    const drive = driveAttachment({
      fileId: 'drv-42',
      name: 'Plan',
      contentType: 'application/vnd.google-apps.document',
    });
    bench.stack.script(p.sessionId, { kind: 'text', text: 'Tokyo is 21 degrees.' });
    const res = await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({
        space: p.space,
        thread: p.thread,
        messageId: 'A1',
        text: 'How warm is Tokyo?',
        attachments: [csv, png, drive],
      }),
    );
    expect(res.status).toBe(200);
    const inbound = await bench.stack.waitForStatus(p.inboundId, ['processed']);

    // Downloaded with the app's token, bytes and all, into the session's workspace.
    const dir = attachmentDirFor(bench.stack.dataDir, p.sessionId, p.inboundId);
    for (const a of [csv, png]) {
      const calls = mediaCalls(a.attachmentDataRef?.resourceName ?? '');
      expect(calls.map((c) => [c.status, c.query.alt])).toEqual([[200, 'media']]);
    }
    expect(fs.readFileSync(path.join(dir, '0-report.csv'), 'utf8')).toBe(notes);
    expect(fs.readFileSync(path.join(dir, '1-pixel.png')).toString('base64')).toBe(PIXEL_PNG);
    expect(inbound.metadata?.attachments).toEqual([
      {
        name: 'report.csv',
        content_type: 'text/csv',
        size: notes.length,
        path: path.join(dir, '0-report.csv'),
      },
      { name: 'pixel.png', content_type: 'image/png', size: 70, path: path.join(dir, '1-pixel.png') },
      {
        name: 'Plan',
        content_type: 'application/vnd.google-apps.document',
        url: 'https://drive.google.com/open?id=drv-42',
      },
    ]);
    expect(inbound.content).toContain(
      `[Attachment: report.csv (text/csv, 28 bytes) saved at attachments/${p.inboundId}/0-report.csv]`,
    );

    // What the model received in this turn.
    const first = lastUser(bench.stack.requestsOf(p.sessionId)[0])?.content;
    expect(Array.isArray(first)).toBe(true);
    const parts = first as { type: string; text?: string; image_url?: { url: string } }[];
    const text = parts.find((x) => x.type === 'text')?.text ?? '';
    expect(text).toContain('How warm is Tokyo?');
    expect(text).toContain(
      `[Attachment report.csv (text/csv), saved in the working directory at attachments/${p.inboundId}/0-report.csv:]`,
    );
    expect(text).toContain(notes);
    expect(text).toContain(`pixel.png (image/png): the image attached below`);
    expect(text).toContain('a link, not downloaded: https://drive.google.com/open?id=drv-42');
    expect(parts.find((x) => x.type === 'image_url')?.image_url?.url).toBe(
      `data:image/png;base64,${PIXEL_PNG}`,
    );
    const reply = await bench.fake.waitFor(() =>
      bench.fake.messagesIn(p.space).find((m) => textOf(m).includes('Tokyo is 21 degrees.')),
    );
    expect(reply.thread.name).toBe(p.thread);

    // The next turn sees the placeholder only.
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space: p.space, thread: p.thread, messageId: 'A2', text: 'thanks' }),
    );
    await bench.stack.waitForStatus(p.inboundId.replace(/A1$/, 'A2'), ['processed']);
    const history = JSON.stringify(bench.stack.requestsOf(p.sessionId).at(-1)?.body?.messages ?? []);
    expect(history).toContain('[Attachments stripped from history: report.csv, pixel.png, Plan]');
    expect(history).not.toContain('image_url');
    expect(history).not.toContain('Osaka,23');
  });

  it('refuses a file over the limit with a message: alone nothing is passed on, with text the text is', async () => {
    const outcomes = new Map<string, IngressOutcome>();
    const small = await startGoogleChat(
      {
        config: { ...bench.config, GOOGLE_CHAT_ATTACHMENT_MAX_BYTES: 1024 },
        dataDir: bench.stack.dataDir,
        pool: bench.stack.pool,
        sessions: bench.stack.sessions,
        logger: createLogger('googlechat-test', process.env.KESOKU_TEST_LOG ?? 'silent'),
      },
      { onHandled: (key, outcome) => outcomes.set(key, outcome) },
    );
    try {
      // Alone: refused, told, nothing stored or started.
      const p = place('B1');
      const big = bench.fake.addMedia({
        name: 'big.log',
        contentType: 'text/plain',
        bytes: 'x'.repeat(4096),
      });
      await bench.fake.postEvent(
        small.url,
        messageEvent({ space: p.space, thread: p.thread, messageId: 'B1', text: '', attachments: [big] }),
      );
      const notice = await bench.fake.waitFor(() => bench.fake.messagesIn(p.space)[0]);
      expect(notice.thread.name).toBe(p.thread);
      expect(textOf(notice)).toContain('I did not take the file big.log: it is larger than the 1 KiB limit.');
      expect(textOf(notice)).toContain('Nothing was passed on to the agent');
      await bench.fake.waitFor(() => outcomes.get(`${p.space}/messages/B1`));
      expect(outcomes.get(`${p.space}/messages/B1`)).toBe('refused');
      expect(await getMessage(bench.stack.pool, p.inboundId)).toBeNull();
      expect(await getSession(bench.stack.pool, p.sessionId)).toBeNull();
      expect(fs.existsSync(attachmentDirFor(bench.stack.dataDir, p.sessionId, p.inboundId))).toBe(false);

      // With text: the text goes on, the model is told the file was not taken.
      const q = place('B2');
      const big2 = bench.fake.addMedia({
        name: 'big.log',
        contentType: 'text/plain',
        bytes: 'y'.repeat(4096),
      });
      await bench.fake.postEvent(
        small.url,
        messageEvent({
          space: q.space,
          thread: q.thread,
          messageId: 'B2',
          text: 'see the log',
          attachments: [big2],
        }),
      );
      const inbound = await bench.stack.waitForStatus(q.inboundId, ['processed']);
      expect(inbound.metadata?.attachments).toBeUndefined();
      const prompt = JSON.stringify(lastUser(bench.stack.requestsOf(q.sessionId)[0])?.content);
      expect(prompt).toContain('see the log');
      expect(prompt).toContain('[Attachment: big.log, not taken: it is larger than the 1 KiB limit]');
      expect(prompt).not.toContain('yyyy');
      const told = await bench.fake.waitFor(() =>
        bench.fake.messagesIn(q.space).find((m) => textOf(m).includes('did not take')),
      );
      expect(textOf(told)).toContain('passed on without them');
      expect(
        fs.existsSync(
          path.join(attachmentDirFor(bench.stack.dataDir, q.sessionId, q.inboundId), '0-big.log'),
        ),
      ).toBe(false);
    } finally {
      await small.stop();
    }
  });

  it('stores nothing for an event with a bad token, and nothing when the media API refuses the app', async () => {
    // A forged event: 401, no download, no file, no message.
    const p = place('C1');
    const secret = bench.fake.addMedia({
      name: 'secret.txt',
      contentType: 'text/plain',
      bytes: 'top secret',
    });
    const resource = secret.attachmentDataRef?.resourceName ?? '';
    const event = messageEvent({
      space: p.space,
      thread: p.thread,
      messageId: 'C1',
      text: 'read this',
      attachments: [secret],
    });
    for (const token of [null, { foreignKey: true }, { audience: '999' }] as const)
      expect((await bench.fake.postEvent(bench.endpoint, event, token)).status).toBe(401);
    await new Promise((r) => setTimeout(r, 500));
    expect(mediaCalls(resource)).toHaveLength(0);
    expect(fs.existsSync(attachmentDirFor(bench.stack.dataDir, p.sessionId, p.inboundId))).toBe(false);
    expect(await getMessage(bench.stack.pool, p.inboundId)).toBeNull();
    expect(bench.fake.messagesIn(p.space)).toHaveLength(0);

    // The fake's media route checks the caller's token like the rest of the API.
    for (const auth of [undefined, 'Bearer ya29.forged'])
      expect(
        (
          await fetch(`${bench.fake.url}/v1/media/${resource}?alt=media`, {
            headers: auth ? { authorization: auth } : {},
          })
        ).status,
      ).toBe(401);

    // The API refuses the app's token (after the client's one refresh too): the file is refused, nothing stored.
    const q = place('C2');
    const other = bench.fake.addMedia({
      name: 'notes.txt',
      contentType: 'text/plain',
      bytes: 'private notes',
    });
    bench.fake.failNext('media', { kind: 'error', status: 401 }, 5);
    await bench.fake.postEvent(
      bench.endpoint,
      messageEvent({ space: q.space, thread: q.thread, messageId: 'C2', text: '', attachments: [other] }),
    );
    const notice = await bench.fake.waitFor(() => bench.fake.messagesIn(q.space)[0]);
    expect(textOf(notice)).toContain(
      'I did not take the file notes.txt: it could not be fetched from Google Chat.',
    );
    const refusedCalls = mediaCalls(other.attachmentDataRef?.resourceName ?? '');
    expect(refusedCalls.length).toBeGreaterThan(0);
    expect(refusedCalls.every((c) => c.status === 401)).toBe(true);
    expect(fs.existsSync(attachmentDirFor(bench.stack.dataDir, q.sessionId, q.inboundId))).toBe(false);
    expect(await getMessage(bench.stack.pool, q.inboundId)).toBeNull();
  });
});
