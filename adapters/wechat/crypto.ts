/**
 * WeChat's message signatures and its message encryption ("safe mode"), for the Official Account message
 * endpoint. Pure apart from node:crypto.
 *
 * - Server URL verification and every push carry `signature` = hex SHA-1 of the lexicographically sorted
 *   strings [token, timestamp, nonce] joined without separator.
 * - In safe mode the push body is `<xml><ToUserName/><Encrypt/></xml>` and the query carries `msg_signature` =
 *   SHA-1 of sorted [token, timestamp, nonce, Encrypt]. `Encrypt` is base64 of AES-256-CBC (key = base64 of the
 *   43-character EncodingAESKey plus "=", IV = the key's first 16 bytes, PKCS#7 padding to 32 bytes) over
 *   random(16) ‖ msg_len (4 bytes, big endian) ‖ msg ‖ appid.
 *   (WeChat's published scheme: developers.weixin.qq.com/doc/offiaccount/Message_Management/Message_encryption_and_decryption_instructions.html
 *   and its sample code, wximg.gtimg.com/shake_tv/mpwiki/cryptoDemo.zip.)
 *
 * The AES part is done by `@wecom/crypto` (Tencent WeCom's package; WeCom and Official Accounts share the scheme,
 * the trailing id being the corp id there and the appid here). This module adds what that package leaves to the
 * caller: constant-time signature comparison, key validation, checking the decrypted appid and lengths, and the
 * age bound of a signed timestamp ({@link MAX_PUSH_AGE_MS}).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { decrypt, encrypt } from '@wecom/crypto';

/** A push or verification request that failed a signature or decryption check. */
export class WechatCryptoError extends Error {
  readonly kind: 'signature' | 'decrypt' | 'appid';
  constructor(kind: WechatCryptoError['kind'], message: string) {
    super(message);
    this.name = 'WechatCryptoError';
    this.kind = kind;
  }
}

/** Hex SHA-1 of `parts` sorted as strings and joined (WeChat's signature rule, see the module comment). */
export function wechatSignature(...parts: string[]): string {
  return createHash('sha1')
    .update([...parts].sort().join(''))
    .digest('hex');
}

/** Whether `given` equals the signature of `parts`, compared in constant time. */
export function signatureMatches(given: string | undefined, ...parts: string[]): boolean {
  if (typeof given !== 'string' || !/^[0-9a-f]{40}$/i.test(given)) return false;
  const expected = Buffer.from(wechatSignature(...parts), 'hex');
  return timingSafeEqual(expected, Buffer.from(given.toLowerCase(), 'hex'));
}

/**
 * How far the signed `timestamp` of a push may be from this server's clock, either way, ms: 5 minutes. WeChat
 * signs each push as it sends it and re-pushes an unanswered one within seconds, so a push outside the bound
 * is a captured request replayed (its signature is still valid: nothing else in it expires). De-duplication by
 * MsgId covers a replay inside the bound. Needs a synchronised clock (NTP).
 */
export const MAX_PUSH_AGE_MS = 5 * 60_000;

/**
 * Whether a push's `timestamp` (decimal seconds since the epoch, as WeChat sends it) lies within `maxAgeMs` of
 * `nowMs` (ms since the epoch), in the past or the future. A value that is not a plain number is not fresh.
 */
export function timestampFresh(timestamp: string, nowMs: number, maxAgeMs = MAX_PUSH_AGE_MS): boolean {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(Number(timestamp) * 1000 - nowMs) <= maxAgeMs;
}

/** Whether `key` has the form of an EncodingAESKey: 43 base64 characters (32 bytes once "=" is appended). */
export function isEncodingAesKey(key: string): boolean {
  return /^[A-Za-z0-9+/]{43}$/.test(key) && Buffer.from(`${key}=`, 'base64').length === 32;
}

/**
 * Decrypts an `Encrypt` value and checks that it was made for `appId`.
 * @returns the inner message (the plain push XML)
 * @throws WechatCryptoError `decrypt` when it is not a valid ciphertext for the key, `appid` for another account
 */
export function decryptWechatMessage(encodingAesKey: string, appId: string, encrypted: string): string {
  let opened: { message: string; id: string };
  try {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encrypted) || Buffer.from(encrypted, 'base64').length % 32 !== 0)
      throw new Error('not a whole number of 32-byte blocks');
    opened = decrypt(encodingAesKey, encrypted);
  } catch (err) {
    throw new WechatCryptoError('decrypt', `the message could not be decrypted: ${String(err)}`);
  }
  if (opened.id !== appId)
    throw new WechatCryptoError('appid', 'the message was encrypted for another appid');
  return opened.message;
}

/**
 * Encrypts `message` for `appId` (what WeChat does to a push in safe mode, and what a passive reply needs).
 * @param random the 16 random leading bytes; fresh ones by default (fixed only to reproduce published samples)
 */
export function encryptWechatMessage(
  encodingAesKey: string,
  appId: string,
  message: string,
  random?: Buffer,
): string {
  return encrypt(encodingAesKey, message, appId, random);
}
