/**
 * WeChat's signature and message encryption against WeChat's own published sample values:
 * - the Official Account sample code (wximg.gtimg.com/shake_tv/mpwiki/cryptoDemo.zip,
 *   Java/src/com/qq/weixin/mp/aes/WXBizMsgCryptTest.java): fixed random bytes give a known ciphertext;
 * - the WeCom callback sample (the "使用示例二" request in WeCom's WXBizMsgCrypt samples), the same scheme with
 *   the corp id in place of the appid: a real msg_signature and Encrypt that must verify and decrypt.
 */
import { describe, expect, it } from 'vitest';
import {
  WechatCryptoError,
  decryptWechatMessage,
  encryptWechatMessage,
  MAX_PUSH_AGE_MS,
  isEncodingAesKey,
  signatureMatches,
  timestampFresh,
  wechatSignature,
} from './crypto.ts';
import { parsePush } from './xml.ts';

const MP = {
  encodingAesKey: 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
  token: 'pamtest',
  timestamp: '1409304348',
  nonce: 'xxxxxx',
  appId: 'wxb11529c136998cb6',
  random: Buffer.from('aaaabbbbccccdddd'),
  replyMsg: '我是中文abcd123',
  afterAesEncrypt: 'jn1L23DB+6ELqJ+6bruv21Y6MD7KeIfP82D6gU39rmkgczbWwt5+3bnyg5K55bgVtVzd832WzZGMhkP72vVOfg==',
  replyMsg2:
    '<xml><ToUserName><![CDATA[oia2Tj我是中文jewbmiOUlr6X-1crbLOvLw]]></ToUserName><FromUserName><![CDATA[gh_7f083739789a]]></FromUserName><CreateTime>1407743423</CreateTime><MsgType><![CDATA[video]]></MsgType><Video><MediaId><![CDATA[eYJ1MbwPRJtOvIEabaxHs7TX2D-HV71s79GUxqdUkjm6Gs2Ed1KF3ulAOA9H1xG0]]></MediaId><Title><![CDATA[testCallBackReplyVideo]]></Title><Description><![CDATA[testCallBackReplyVideo]]></Description></Video></xml>',
  afterAesEncrypt2:
    'jn1L23DB+6ELqJ+6bruv23M2GmYfkv0xBh2h+XTBOKVKcgDFHle6gqcZ1cZrk3e1qjPQ1F4RsLWzQRG9udbKWesxlkupqcEcW7ZQweImX9+wLMa0GaUzpkycA8+IamDBxn5loLgZpnS7fVAbExOkK5DYHBmv5tptA9tklE/fTIILHR8HLXa5nQvFb3tYPKAlHF3rtTeayNf0QuM+UW/wM9enGIDIJHF7CLHiDNAYxr+r+OrJCmPQyTy8cVWlu9iSvOHPT/77bZqJucQHQ04sq7KZI27OcqpQNSto2OdHCoTccjggX5Z9Mma0nMJBU+jLKJ38YB1fBIz+vBzsYjrTmFQ44YfeEuZ+xRTQwr92vhA9OxchWVINGC50qE/6lmkwWTwGX9wtQpsJKhP+oS7rvTY8+VdzETdfakjkwQ5/Xka042OlUb1/slTwo4RscuQ+RdxSGvDahxAJ6+EAjLt9d8igHngxIbf6YyqqROxuxqIeIch3CssH/LqRs+iAcILvApYZckqmA7FNERspKA5f8GoJ9sv8xmGvZ9Yrf57cExWtnX8aCMMaBropU/1k+hKP5LVdzbWCG0hGwx/dQudYR/eXp3P0XxjlFiy+9DMlaFExWUZQDajPkdPrEeOwofJb',
};

const WECOM = {
  token: 'QDG6eK',
  receiveId: 'wx5823bf96d3bd56c7',
  encodingAesKey: 'jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C',
  msgSignature: '477715d11cdb4164915debcba66cb864d751f3e6',
  timestamp: '1409659813',
  nonce: '1372623149',
  encrypt:
    'RypEvHKD8QQKFhvQ6QleEB4J58tiPdvo+rtK1I9qca6aM/wvqnLSV5zEPeusUiX5L5X/0lWfrf0QADHHhGd3QczcdCUpj911L3vg3W/sYYvuJTs3TUUkSUXxaccAS0qhxchrRYt66wiSpGLYL42aM6A8dTT+6k4aSknmPj48kzJs8qLjvd4Xgpue06DOdnLxAUHzM6+kDZ+HMZfJYuR+LtwGc2hgf5gsijff0ekUNXZiqATP7PF5mZxZ3Izoun1s4zG4LUMnvw2r+KqCKIw+3IQH03v+BCA9nMELNqbSf6tiWSrXJB3LAVGUcallcrw8V2t9EL4EhzJWrQUax5wLVMNS0+rUPA3k22Ncx4XXZS9o0MBH27Bo6BpNelZpS+/uh9KsNlY6bHCmJU9p8g7m3fVKn28H3KDYA5Pl/T8Z1ptDAVe0lXdQ2YoyyH2uyPIGHBZZIs2pDBS8R07+qN+E7Q==',
};

describe('WeChat message encryption (published samples)', () => {
  it('encrypts the Official Account samples to the published ciphertexts and decrypts them back', () => {
    expect(encryptWechatMessage(MP.encodingAesKey, MP.appId, MP.replyMsg, MP.random)).toBe(
      MP.afterAesEncrypt,
    );
    expect(encryptWechatMessage(MP.encodingAesKey, MP.appId, MP.replyMsg2, MP.random)).toBe(
      MP.afterAesEncrypt2,
    );
    expect(decryptWechatMessage(MP.encodingAesKey, MP.appId, MP.afterAesEncrypt)).toBe(MP.replyMsg);
    expect(decryptWechatMessage(MP.encodingAesKey, MP.appId, MP.afterAesEncrypt2)).toBe(MP.replyMsg2);
  });

  it('verifies the published msg_signature and decrypts the published push', () => {
    expect(wechatSignature(WECOM.token, WECOM.timestamp, WECOM.nonce, WECOM.encrypt)).toBe(
      WECOM.msgSignature,
    );
    expect(
      signatureMatches(WECOM.msgSignature, WECOM.token, WECOM.timestamp, WECOM.nonce, WECOM.encrypt),
    ).toBe(true);
    const push = parsePush(decryptWechatMessage(WECOM.encodingAesKey, WECOM.receiveId, WECOM.encrypt));
    expect(push).toMatchObject({
      ToUserName: 'wx5823bf96d3bd56c7',
      FromUserName: 'mycreate',
      CreateTime: 1409659813,
      MsgType: 'text',
      Content: 'hello',
      MsgId: '4561255354251345929',
    });
  });

  it('refuses a wrong signature, a ciphertext for another appid and a damaged ciphertext', () => {
    const bad = WECOM.msgSignature.replace(/^4/, '5');
    expect(signatureMatches(bad, WECOM.token, WECOM.timestamp, WECOM.nonce, WECOM.encrypt)).toBe(false);
    expect(signatureMatches(WECOM.msgSignature, WECOM.token, WECOM.timestamp, '1', WECOM.encrypt)).toBe(
      false,
    );
    expect(signatureMatches(undefined, WECOM.token)).toBe(false);
    expect(signatureMatches('not hex', WECOM.token)).toBe(false);
    expect(() => decryptWechatMessage(MP.encodingAesKey, 'wx0000000000000000', MP.afterAesEncrypt)).toThrow(
      WechatCryptoError,
    );
    expect(() =>
      decryptWechatMessage(MP.encodingAesKey, MP.appId, 'AAAA' + MP.afterAesEncrypt.slice(4)),
    ).toThrow(WechatCryptoError);
    expect(() => decryptWechatMessage(MP.encodingAesKey, MP.appId, 'abc')).toThrow(WechatCryptoError);
  });

  it('computes the URL verification signature over token, timestamp and nonce', () => {
    // sha1 of the sorted strings joined: "1409304348" < "pamtest" < "xxxxxx".
    const expected = wechatSignature('1409304348pamtestxxxxxx');
    expect(wechatSignature(MP.token, MP.timestamp, MP.nonce)).toBe(expected);
    expect(signatureMatches(expected.toUpperCase(), MP.token, MP.nonce, MP.timestamp)).toBe(true);
  });

  it('accepts only 43-character EncodingAESKeys', () => {
    expect(isEncodingAesKey(MP.encodingAesKey)).toBe(true);
    expect(isEncodingAesKey(MP.encodingAesKey.slice(1))).toBe(false);
    expect(isEncodingAesKey(`${MP.encodingAesKey.slice(1)}!`)).toBe(false);
  });
});

describe('push timestamp age', () => {
  const now = 1_764_547_200_000;
  const secondsAgo = (s: number) => String(now / 1000 - s);

  it('takes a timestamp up to five minutes away, in the past or the future', () => {
    expect(MAX_PUSH_AGE_MS).toBe(5 * 60_000);
    expect(timestampFresh(secondsAgo(0), now)).toBe(true);
    expect(timestampFresh(secondsAgo(300), now)).toBe(true);
    expect(timestampFresh(secondsAgo(-300), now)).toBe(true);
  });

  it('refuses an older or later one, and one that is not a number of seconds', () => {
    expect(timestampFresh(secondsAgo(301), now)).toBe(false);
    expect(timestampFresh(secondsAgo(-301), now)).toBe(false);
    expect(timestampFresh(MP.timestamp, now)).toBe(false);
    for (const bad of ['', 'NaN', '1e9', '-1', ' 1764547200', '1764547200.5'])
      expect(timestampFresh(bad, now)).toBe(false);
  });
});
