// Session locale: PATCH {"locale"} and KESOKU_LOCALE make the Chinese notices reachable.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { loadConfig } from '../../infra/config.ts';
import type { Stack } from '../support/stack.ts';
import { uniqueId } from '../support/stack.ts';
import { expectProblem, useHarness, type Json } from './support.ts';

const ENDED = ['processed', 'error', 'interrupted'] as const;

/** Submits `content` to a session whose model answers with nothing three times: the turn fails. */
async function failedTurnNotice(
  stack: Stack,
  session: string,
  content: string,
): Promise<Message | undefined> {
  stack.script(session, { kind: 'empty' }, { kind: 'empty' }, { kind: 'empty' });
  const r = await stack.submit(session, content);
  expect((await stack.waitForStatus(r.message.id, [...ENDED])).status).toBe('error');
  return (await stack.messages(session)).find(
    (m) => m.turn_id === r.message.id && m.role === 'assistant' && m.metadata?.failure_kind,
  );
}

describe('PATCH /v1/sessions/{id} {"locale"}', () => {
  const h = useHarness();

  it('switches the crash notice to Chinese, and back', async () => {
    const session = uniqueId('s');
    const first = await h.client.post(`/v1/sessions/${session}/messages`, { content: 'hello', wait: 30 });
    expect(first.status).toBe(200);
    expect((await h.client.get<Json>(`/v1/sessions/${session}`)).body.locale).toBe('en');
    expect((await failedTurnNotice(h.stack, session, 'before'))?.content).toMatch(
      /^⚠️ Something went wrong while handling your request: /,
    );

    const res = await h.client.patch(`/v1/sessions/${session}`, { locale: 'zh' });
    expect(res.status).toBe(200);
    expect(res.body.locale).toBe('zh');
    const notice = await failedTurnNotice(h.stack, session, '你好');
    expect(notice?.content).toBe('⚠️ 处理您的请求时发生异常: 模型多次返回空回复。');

    expect((await h.client.patch(`/v1/sessions/${session}`, { locale: 'en' })).body.locale).toBe('en');
    expect((await failedTurnNotice(h.stack, session, 'after'))?.content).toMatch(/^⚠️ Something went wrong/);
  });

  it('refuses an unknown locale and an unknown session', async () => {
    const session = uniqueId('s');
    expect(
      (await h.client.post(`/v1/sessions/${session}/messages`, { content: 'hi', wait: 30 })).status,
    ).toBe(200);
    expect(
      expectProblem(await h.client.patch(`/v1/sessions/${session}`, { locale: 'fr' }), 400, 'validation')
        .field,
    ).toBe('locale');
    expectProblem(
      await h.client.patch(`/v1/sessions/discord:${uniqueId('nobody')}`, { locale: 'zh' }),
      404,
      'session-not-found',
    );
  });
});

describe('KESOKU_LOCALE=zh', () => {
  const h = useHarness({ stack: { defaultLocale: loadConfig({ KESOKU_LOCALE: 'zh' }).KESOKU_LOCALE } });

  it('is the locale of new sessions: their notices are Chinese', async () => {
    const session = uniqueId('s');
    const notice = await failedTurnNotice(h.stack, session, '你好');
    expect((await h.client.get<Json>(`/v1/sessions/${session}`)).body.locale).toBe('zh');
    expect(notice?.content).toBe('⚠️ 处理您的请求时发生异常: 模型多次返回空回复。');
  });

  it('is the locale of a session a PATCH creates before its first message', async () => {
    const session = uniqueId('s');
    const res = await h.client.patch<Json>(`/v1/sessions/${session}`, { mode: 'queue' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ locale: 'zh', mode: 'queue', turn_count: 0 });
  });

  it('is validated: only en and zh', () => {
    expect(loadConfig({}).KESOKU_LOCALE).toBe('en');
    expect(() => loadConfig({ KESOKU_LOCALE: 'fr' })).toThrow(/KESOKU_LOCALE/);
  });
});
