/**
 * WeChat access tokens shared by several processes (the channel's endpoint and each worker's sink hold an API
 * client of their own): against the fake's real token semantics — each plain `/cgi-bin/token` fetch revokes the
 * previous token, the stable token is the same for every caller — two clients keep working side by side.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WechatApi } from '../api.ts';
import { createLogger } from '../../../infra/logger.ts';
import { newOpenId, startFakeWechat, type FakeWechat } from './fake-server.ts';

const logger = createLogger('wechat-tokens-test', process.env.KESOKU_TEST_LOG ?? 'silent');
let fake: FakeWechat | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A client as one process has it. */
const clientOf = (f: FakeWechat) =>
  new WechatApi({ appId: f.appId, appSecret: f.appSecret, apiUrl: f.apiUrl, logger });

describe('WeChat access tokens across processes', () => {
  it('two processes share the stable token: neither knocks the other out, no call is refused', async () => {
    // A replaced plain token dies at once here, so a client on /cgi-bin/token would see its calls refused.
    fake = await startFakeWechat({ tokenGraceMs: 0 });
    const adapter = clientOf(fake);
    const worker = clientOf(fake);
    const user = newOpenId();
    await adapter.sendText(user, 'a1');
    await worker.sendText(user, 'w1');
    await adapter.sendText(user, 'a2');
    await worker.sendText(user, 'w2');
    await Promise.all([adapter.sendText(user, 'a3'), worker.sendText(user, 'w3')]);
    expect(fake.sentTo(user).sort()).toEqual(['a1', 'a2', 'a3', 'w1', 'w2', 'w3']);
    // Every send went through at the first try, with the one token both fetched.
    expect(fake.sendCalls).toBe(6);
    expect(new Set(fake.sent.map((m) => m.token)).size).toBe(1);
    expect([adapter.tokensFetched, worker.tokensFetched]).toEqual([1, 1]);
    expect(fake.stableTokensIssued).toBe(1);
    expect(fake.plainTokenRequests).toBe(0);
    expect(fake.forcedRefreshes).toBe(0);
  });

  it('after a forced refresh elsewhere, each process fetches the new token once (normal mode) and goes on', async () => {
    fake = await startFakeWechat({ tokenGraceMs: 0 });
    const adapter = clientOf(fake);
    const worker = clientOf(fake);
    const user = newOpenId();
    await adapter.sendText(user, 'before-a');
    await worker.sendText(user, 'before-w');
    // Someone (an operator after a leak) forces a new stable token: the old one is invalid at once (40001).
    fake.forceRefreshStable();
    await adapter.sendText(user, 'after-a');
    await worker.sendText(user, 'after-w');
    expect(fake.sentTo(user)).toEqual(['before-a', 'before-w', 'after-a', 'after-w']);
    // One refused send each, one fetch each of the new token; Kesoku never forces a refresh itself.
    expect(fake.sendCalls).toBe(6);
    expect([adapter.tokensFetched, worker.tokensFetched]).toEqual([2, 2]);
    expect(fake.stableTokensIssued).toBe(2);
    expect(fake.forcedRefreshes).toBe(1);
    expect(fake.plainTokenRequests).toBe(0);
  });

  it('the fake plain token endpoint revokes the previous token (what the stable token avoids)', async () => {
    fake = await startFakeWechat({ tokenGraceMs: 0 });
    const get = async () => {
      const url = new URL(`${fake?.apiUrl}/cgi-bin/token`);
      url.searchParams.set('grant_type', 'client_credential');
      url.searchParams.set('appid', fake?.appId ?? '');
      url.searchParams.set('secret', fake?.appSecret ?? '');
      return ((await (await fetch(url)).json()) as { access_token: string }).access_token;
    };
    const send = async (token: string) => {
      const res = await fetch(`${fake?.apiUrl}/cgi-bin/message/custom/send?access_token=${token}`, {
        method: 'POST',
        body: JSON.stringify({ touser: newOpenId(), msgtype: 'text', text: { content: 'x' } }),
      });
      return ((await res.json()) as { errcode: number }).errcode;
    };
    const first = await get();
    expect(await send(first)).toBe(0);
    const second = await get();
    expect(await send(first)).toBe(40001);
    expect(await send(second)).toBe(0);
  });
});
