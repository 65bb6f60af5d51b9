import { describe, expect, it } from 'vitest';
import { wechatChannel } from './channel.ts';

const parse = (env: Record<string, string>) => wechatChannel.configSchema.safeParse(env);
const creds = { WECHAT_APP_ID: 'wx0123456789abcdef', WECHAT_APP_SECRET: 's3cret', WECHAT_TOKEN: 'pamtest' };

describe('WeChat channel configuration', () => {
  it('is off without credentials and on with all three', () => {
    const off = parse({});
    expect(off.success && wechatChannel.enabled(off.data)).toBe(false);
    const on = parse(creds);
    expect(on.success && wechatChannel.enabled(on.data)).toBe(true);
    expect(on.data).toMatchObject({
      WECHAT_API_URL: 'https://api.weixin.qq.com',
      WECHAT_HOST: '127.0.0.1',
      WECHAT_PORT: 3100,
      WECHAT_PATH: '/wechat',
      WECHAT_ALLOW_ALL: false,
      WECHAT_ALLOWED_USERS: [],
    });
  });

  it('names the variable that is wrong', () => {
    const partial = parse({ WECHAT_APP_ID: 'wx1' });
    expect(partial.success).toBe(false);
    expect(partial.error?.issues[0]?.path).toEqual(['WECHAT_APP_ID']);
    const key = parse({ ...creds, WECHAT_ENCODING_AES_KEY: 'short' });
    expect(key.error?.issues[0]?.path).toEqual(['WECHAT_ENCODING_AES_KEY']);
    const token = parse({ ...creds, WECHAT_TOKEN: 'has space' });
    expect(token.error?.issues[0]?.path).toEqual(['WECHAT_TOKEN']);
    const allowAll = parse({ ...creds, WECHAT_ALLOW_ALL: 'yes' });
    expect(allowAll.error?.issues[0]?.path).toEqual(['WECHAT_ALLOW_ALL']);
  });

  it('declares its secrets and a byte-counted plain-text channel', () => {
    expect(wechatChannel.secretKeys).toEqual([
      'WECHAT_APP_SECRET',
      'WECHAT_TOKEN',
      'WECHAT_ENCODING_AES_KEY',
    ]);
    expect(wechatChannel.features).toMatchObject({
      maxMessageLength: 2048,
      lengthUnit: 'utf8_bytes',
      markdown: 'plain',
      editsInPlace: false,
    });
    expect(wechatChannel.sessionPrefix).toBe('wechat:');
  });
});
