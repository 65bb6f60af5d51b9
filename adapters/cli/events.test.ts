// Following a session's event stream: committed messages arrive without gaps (a gap is refetched), a lost
// stream is reopened with Last-Event-ID, and a session that does not exist yet is waited for. The server here is
// a scripted HTTP server speaking the API's SSE frames, so each case is exact.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { TRACE_6_1 } from '../../domain/fixtures/trace-6-1.ts';
import { KesokuApi } from './api-client.ts';
import { follow, type Follower, type StreamState } from './events.ts';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, connection: number) => void;

const servers: http.Server[] = [];
const followers: Follower[] = [];
afterEach(async () => {
  for (const f of followers.splice(0)) f.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server whose `/events` connections are answered by `onEvents` (numbered from 1) and history reads by `onMessages`. */
async function fakeApi(
  onEvents: Handler,
  onMessages: (after: number) => unknown = () => ({ revision: 0, messages: [] }),
) {
  const lastEventIds: (string | undefined)[] = [];
  const historyReads: number[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.endsWith('/events')) {
      lastEventIds.push(req.headers['last-event-id'] as string | undefined);
      onEvents(req, res, ++connections);
    } else if (url.pathname.endsWith('/messages')) {
      const after = Number(url.searchParams.get('after_revision'));
      historyReads.push(after);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(onMessages(after)));
    } else {
      res.writeHead(404).end();
    }
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { api: new KesokuApi({ baseUrl: url }), lastEventIds, historyReads };
}

const open = (res: http.ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(': connected\n\n');
};
const at = (revision: number, i = revision): Message => ({
  ...(TRACE_6_1[i % TRACE_6_1.length] as Message),
  id: `m${revision}`,
  revision,
});
const committed = (res: http.ServerResponse, previous: number, revision: number, messages: Message[]) =>
  res.write(
    `event: turn.committed\nid: ${revision}\ndata: ${JSON.stringify({ session_id: 's1', revision, previous_revision: previous, messages })}\n\n`,
  );

/** Collects what the follower hands on. */
function recorder() {
  const batches: { ids: string[]; revision: number }[] = [];
  const states: StreamState['state'][] = [];
  const problems: string[] = [];
  const waiters: (() => void)[] = [];
  const poke = () => waiters.splice(0).forEach((w) => w());
  return {
    batches,
    states,
    problems,
    handlers: {
      onCommitted: (messages: Message[], revision: number) => {
        batches.push({ ids: messages.map((m) => m.id), revision });
        poke();
      },
      onUpdated: () => undefined,
      onState: (s: StreamState) => {
        states.push(s.state);
        poke();
      },
      onProtocolError: (d: string) => {
        problems.push(d);
        poke();
      },
    },
    async until(pred: () => boolean, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pred()) {
        if (Date.now() > deadline)
          throw new Error(`not reached; batches ${JSON.stringify(batches)}, states ${states}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
    },
  };
}

describe('follow', () => {
  it('reads the missing revisions when an event does not start where the last one ended', async () => {
    const { api, historyReads } = await fakeApi(
      (_req, res) => {
        open(res);
        committed(res, 0, 1, [at(1)]);
        committed(res, 3, 4, [at(4)]);
      },
      (after) => ({
        revision: 3,
        messages: [at(2), at(3)].filter((m) => m.revision > after),
        has_more: false,
      }),
    );
    const r = recorder();
    followers.push(follow({ api, sessionId: 's1', afterRevision: 0, handlers: r.handlers }));
    await r.until(() => r.batches.length === 3);
    expect(r.batches).toEqual([
      { ids: ['m1'], revision: 1 },
      { ids: ['m2', 'm3'], revision: 3 },
      { ids: ['m4'], revision: 4 },
    ]);
    expect(historyReads).toEqual([1]);
  });

  it('reopens a lost stream with Last-Event-ID set to the revision it holds, and skips what it already has', async () => {
    const { api, lastEventIds } = await fakeApi((_req, res, n) => {
      open(res);
      if (n === 1) {
        committed(res, 5, 6, [at(6)]);
        res.end(); // the server goes away
      } else {
        committed(res, 5, 6, [at(6)]); // an overlap a server may send after a resume
        committed(res, 6, 7, [at(7)]);
      }
    });
    const r = recorder();
    followers.push(follow({ api, sessionId: 's1', afterRevision: 5, handlers: r.handlers, backoffMs: 10 }));
    await r.until(() => r.batches.length === 2);
    expect(lastEventIds).toEqual(['5', '6']);
    expect(r.batches).toEqual([
      { ids: ['m6'], revision: 6 },
      { ids: ['m7'], revision: 7 },
    ]);
    expect(r.states).toEqual(['connected', 'lost', 'connected']);
  });

  it('waits quietly while the session does not exist, and connects from revision 0 once it does', async () => {
    let exists = false;
    const { api, lastEventIds } = await fakeApi((_req, res) => {
      if (!exists) {
        res.writeHead(404, { 'content-type': 'application/problem+json' });
        res.end(
          JSON.stringify({
            type: 'urn:kesoku:problem:session-not-found',
            title: 'Unknown session',
            status: 404,
            detail: 'no',
          }),
        );
        return;
      }
      open(res);
      committed(res, 0, 1, [at(1)]);
    });
    const r = recorder();
    const f = follow({ api, sessionId: 's1', afterRevision: 0, handlers: r.handlers, waitMs: 60_000 });
    followers.push(f);
    await r.until(() => r.states.includes('waiting'));
    exists = true;
    f.wake();
    await r.until(() => r.batches.length === 1);
    expect(r.states).toEqual(['waiting', 'connected']);
    expect(lastEventIds).toEqual(['0', '0']);
  });

  it('takes a stream the server reset (previous revision 0 while it holds a later one) as a fresh start', async () => {
    const { api, lastEventIds } = await fakeApi((_req, res) => {
      open(res);
      committed(res, 0, 2, [at(1), at(2)]); // the session's data was reset: its whole history
      committed(res, 2, 3, [at(3)]);
    });
    const r = recorder();
    followers.push(follow({ api, sessionId: 's1', afterRevision: 9, handlers: r.handlers }));
    await r.until(() => r.batches.length === 2);
    expect(lastEventIds).toEqual(['9']);
    expect(r.batches).toEqual([
      { ids: ['m1', 'm2'], revision: 2 },
      { ids: ['m3'], revision: 3 },
    ]);
  });

  it('skips a frame it cannot understand and keeps the stream', async () => {
    const { api } = await fakeApi((_req, res) => {
      open(res);
      res.write('event: turn.committed\ndata: {"revision":"x"}\n\n');
      committed(res, 0, 1, [at(1)]);
    });
    const r = recorder();
    followers.push(follow({ api, sessionId: 's1', afterRevision: 0, handlers: r.handlers }));
    await r.until(() => r.batches.length === 1);
    expect(r.problems).toHaveLength(1);
    expect(r.states).toEqual(['connected']);
  });
});
