/**
 * The WeChat channel's variables, parsed from the environment by the channel itself (zod). The channel is on
 * when WECHAT_APP_ID, WECHAT_APP_SECRET and WECHAT_TOKEN are set; setting only some of them is an error.
 */
import { z } from 'zod';
import { flag, list, optionalString } from '../../infra/config.ts';
import { isEncodingAesKey } from './crypto.ts';
import { DEFAULT_WECHAT_API } from './api.ts';

const port = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return 3100;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0 || n > 65535) {
      ctx.addIssue({ code: 'custom', message: 'must be an integer between 0 and 65535' });
      return z.NEVER;
    }
    return n;
  });

/** The variables (see README "WeChat"). */
export const wechatConfigSchema = z
  .object({
    /** The Official Account's AppID (开发者ID). */
    WECHAT_APP_ID: optionalString,
    /** Its AppSecret, for the access token. */
    WECHAT_APP_SECRET: optionalString,
    /** The Token entered in the server configuration (signatures). */
    WECHAT_TOKEN: optionalString,
    /** The EncodingAESKey (43 characters): needed for safe and compatible mode. */
    WECHAT_ENCODING_AES_KEY: optionalString,
    /** API base URL. */
    WECHAT_API_URL: optionalString.transform((v) => (v ?? DEFAULT_WECHAT_API).replace(/\/+$/, '')),
    /** Where the message endpoint listens; WeChat reaches it through a reverse proxy on port 80 or 443. */
    WECHAT_HOST: optionalString.transform((v) => v ?? '127.0.0.1'),
    WECHAT_PORT: port,
    /** The endpoint's path. */
    WECHAT_PATH: optionalString.transform((v) => v ?? '/wechat'),
    /** OpenIDs allowed to talk to the agent (mode `lists`). */
    WECHAT_ALLOWED_USERS: list,
    /** Everyone who follows the account may talk to the agent (mode `open`). */
    WECHAT_ALLOW_ALL: flag,
  })
  .superRefine((c, ctx) => {
    const set = [c.WECHAT_APP_ID, c.WECHAT_APP_SECRET, c.WECHAT_TOKEN].filter((v) => v !== undefined);
    if (set.length > 0 && set.length < 3)
      ctx.addIssue({
        code: 'custom',
        path: ['WECHAT_APP_ID'],
        message: 'WECHAT_APP_ID, WECHAT_APP_SECRET and WECHAT_TOKEN must be set together',
      });
    if (c.WECHAT_TOKEN !== undefined && !/^[A-Za-z0-9]{3,32}$/.test(c.WECHAT_TOKEN))
      ctx.addIssue({
        code: 'custom',
        path: ['WECHAT_TOKEN'],
        message: 'must be 3-32 letters or digits (as WeChat requires)',
      });
    if (c.WECHAT_ENCODING_AES_KEY !== undefined && !isEncodingAesKey(c.WECHAT_ENCODING_AES_KEY))
      ctx.addIssue({
        code: 'custom',
        path: ['WECHAT_ENCODING_AES_KEY'],
        message: 'must be the 43-character EncodingAESKey',
      });
    if (!c.WECHAT_PATH.startsWith('/'))
      ctx.addIssue({ code: 'custom', path: ['WECHAT_PATH'], message: 'must start with /' });
  });

/** The parsed configuration. */
export type WechatConfig = z.output<typeof wechatConfigSchema>;

/** The configuration of an enabled channel (the three credentials present). */
export type EnabledWechatConfig = WechatConfig & {
  WECHAT_APP_ID: string;
  WECHAT_APP_SECRET: string;
  WECHAT_TOKEN: string;
};

/** True when the channel is configured. */
export function wechatEnabled(c: WechatConfig): c is EnabledWechatConfig {
  return c.WECHAT_APP_ID !== undefined && c.WECHAT_APP_SECRET !== undefined && c.WECHAT_TOKEN !== undefined;
}
