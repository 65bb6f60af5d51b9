/**
 * The XML of WeChat pushes (docs: developers.weixin.qq.com/doc/offiaccount/Message_Management/Receiving_standard_messages.html
 * and Receiving_event_pushes.html): a flat `<xml>` element whose children are text or CDATA. Parsed with
 * fast-xml-parser, every value kept as a string (MsgId is a 64-bit integer; a number would lose digits).
 */
import { XMLParser } from 'fast-xml-parser';

/** A pushed message or event as the ingress needs it. Field names follow WeChat's XML. */
export interface WechatPush {
  /** The Official Account's original id (gh_…). */
  ToUserName: string;
  /** The sender's OpenID (unique per user and Official Account). */
  FromUserName: string;
  /** Seconds since the epoch. */
  CreateTime: number;
  /** `text`, `image`, `voice`, `video`, `shortvideo`, `location`, `link`, `event`, … */
  MsgType: string;
  /** Text of a `text` message. */
  Content?: string;
  /** The message id (decimal string); absent on events. */
  MsgId?: string;
  /** For `event`: `subscribe`, `unsubscribe`, `CLICK`, … */
  Event?: string;
  /** Speech recognition result of a `voice` message, when recognition is enabled for the account. */
  Recognition?: string;
}

/** A body that is not a WeChat push. */
export class WechatXmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WechatXmlError';
  }
}

const parser = new XMLParser({
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreAttributes: true,
  trimValues: false,
  processEntities: true,
});

/** The children of the root `<xml>` element as strings (nested elements are dropped). @throws WechatXmlError */
export function parseXmlFields(body: string): Record<string, string> {
  let doc: unknown;
  try {
    doc = parser.parse(body, true);
  } catch (err) {
    throw new WechatXmlError(`malformed XML: ${String(err)}`);
  }
  const root = (doc as { xml?: unknown } | null)?.xml;
  if (root === null || typeof root !== 'object') throw new WechatXmlError('no <xml> root element');
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(root as Record<string, unknown>)) {
    if (typeof v === 'string') fields[k] = v;
  }
  return fields;
}

/** Reads a decrypted or plain push. @throws WechatXmlError when a required field is missing */
export function parsePush(body: string): WechatPush {
  const f = parseXmlFields(body);
  const required = ['ToUserName', 'FromUserName', 'CreateTime', 'MsgType'] as const;
  for (const k of required) if (!f[k]) throw new WechatXmlError(`the push has no ${k}`);
  const createTime = Number(f.CreateTime);
  if (!Number.isSafeInteger(createTime) || createTime < 0)
    throw new WechatXmlError('CreateTime is not a number');
  if (f.MsgId !== undefined && !/^\d{1,20}$/.test(f.MsgId)) throw new WechatXmlError('MsgId is not a number');
  return {
    ToUserName: f.ToUserName as string,
    FromUserName: f.FromUserName as string,
    CreateTime: createTime,
    MsgType: f.MsgType as string,
    ...(f.Content !== undefined ? { Content: f.Content } : {}),
    ...(f.MsgId !== undefined ? { MsgId: f.MsgId } : {}),
    ...(f.Event !== undefined ? { Event: f.Event } : {}),
    ...(f.Recognition !== undefined ? { Recognition: f.Recognition } : {}),
  };
}

/** `<![CDATA[…]]>` around `s`, splitting any `]]>` inside it. */
export function cdata(s: string): string {
  return `<![CDATA[${s.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}
