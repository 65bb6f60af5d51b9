/**
 * Encryption of Temporal payloads: every payload a Kesoku client or worker sends to Temporal (workflow and
 * activity inputs and results, update arguments, signals, memos) is AES-256-GCM encrypted, so the Temporal
 * history — and the dev server's SQLite file — holds no message text.
 *
 * Format (the one Temporal's encryption samples use): the original payload, serialised as the
 * `temporal.api.common.v1.Payload` protobuf, is encrypted into `data` = 12-byte IV ‖ ciphertext ‖ 16-byte tag,
 * with metadata `encoding: binary/encrypted`, `encryption-cipher: AES-256-GCM` and `encryption-key-id: <id>`.
 * The key id is also the GCM additional data, so a payload cannot be passed off under another key's id.
 *
 * Keys: `KESOKU_PAYLOAD_KEYS=k2:<base64 of 32 bytes>,k1:<…>` or the file `<data dir>/payload-keys` (same
 * entries, one per line). The first key encrypts; every key decrypts, so a key is rotated by putting a new one
 * first and dropping the old one once no history needs it.
 *
 * Decode refuses a payload without the encrypted encoding ({@link PayloadDecryptionError} `unencrypted`): the
 * key is what tells Kesoku's own payloads from those of anyone else who can reach Temporal (any local user of a
 * loopback dev server, a page rebinding to the Web UI, the `temporal` CLI), so an unencrypted signal, update or
 * start never reaches a session. Kesoku's processes encrypt every payload they send (the SDK leaves only search
 * attributes and headers to other converters, and never decodes those with the codec). A payload refused by a
 * worker fails that workflow task: the workflow stops at it until it is reset or terminated. Histories written
 * before encryption are read with `acceptPlaintext` (KESOKU_CODEC_ACCEPT_PLAINTEXT=true, a one-time migration
 * that warns at start, or the offline replayer, which runs nothing).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { ConfigError } from './config.ts';
import { ensurePrivateDir, tightenFileMode, writePrivateFileExclusive } from './private-files.ts';

// A CommonJS package: Node's ESM loader offers only its default export.
const { temporal } = proto;

/** Metadata `encoding` of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
const CIPHER = 'AES-256-GCM';
const KEY_ID = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key file's name inside the data dir. */
export const PAYLOAD_KEYS_FILE = 'payload-keys';

/** One encryption key: `id` goes into each payload's metadata. */
export interface PayloadKey {
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

/** A payload that cannot be decrypted: not encrypted at all, an unknown key id, a wrong key, or tampered data. */
export class PayloadDecryptionError extends Error {
  readonly kind: 'unencrypted' | 'unknown_key' | 'corrupt';
  constructor(kind: PayloadDecryptionError['kind'], message: string) {
    super(message);
    this.name = 'PayloadDecryptionError';
    this.kind = kind;
  }
}

const KEY_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Parses `id:<base64 of 32 bytes>` entries separated by commas or newlines (blank lines and `#` comments
 * skipped). @throws ConfigError naming the entry (never the key) and `source`
 */
export function parsePayloadKeys(text: string, source: string): PayloadKey[] {
  const keys: PayloadKey[] = [];
  const problems: string[] = [];
  const entries = text
    .split(/[,\n]/)
    .map((e) => e.trim())
    .filter((e) => e !== '' && !e.startsWith('#'));
  entries.forEach((entry, i) => {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : '';
    const key = Buffer.from(colon > 0 ? entry.slice(colon + 1) : '', 'base64');
    if (!KEY_ID_PATTERN.test(id))
      problems.push(`entry ${i + 1}: write id:<base64 of 32 random bytes> (id: A-Z a-z 0-9 _ . -)`);
    else if (key.length !== 32)
      problems.push(`entry ${i + 1} (${id}): the key must be 32 bytes in base64 (openssl rand -base64 32)`);
    else if (keys.some((k) => k.id === id)) problems.push(`entry ${i + 1}: the key id ${id} is used twice`);
    else keys.push({ id, key });
  });
  if (keys.length === 0 && problems.length === 0) problems.push('no key given');
  if (problems.length > 0)
    throw new ConfigError(`invalid payload keys in ${source}:\n  ${problems.join('\n  ')}`);
  return keys;
}

/** A new key entry `k<yyyymmdd>:<base64>` for a key file or `KESOKU_PAYLOAD_KEYS`. */
export function newPayloadKeyEntry(now: Date = new Date()): string {
  return `k${now.toISOString().slice(0, 10).replaceAll('-', '')}:${randomBytes(32).toString('base64')}`;
}

/** Where the payload keys came from. */
export type PayloadKeySource = 'env' | 'file' | 'created';

/**
 * The payload keys of this process: `KESOKU_PAYLOAD_KEYS` when set, else `<dataDir>/payload-keys`; with
 * `create` (the all-in-one `npm start`) a missing file is created with one new key (mode 0600, created
 * exclusively, so processes starting together end up with the same key).
 * @throws ConfigError when no key is found and `create` is false, or the keys are malformed
 */
export function resolvePayloadKeys(opts: { env?: string; dataDir: string; create: boolean }): {
  keys: PayloadKey[];
  source: PayloadKeySource;
  file?: string;
} {
  if (opts.env) return { keys: parsePayloadKeys(opts.env, 'KESOKU_PAYLOAD_KEYS'), source: 'env' };
  const file = path.join(opts.dataDir, PAYLOAD_KEYS_FILE);
  let source: PayloadKeySource = 'file';
  if (!fs.existsSync(file)) {
    if (!opts.create) {
      throw new ConfigError(
        `no payload encryption key: set KESOKU_PAYLOAD_KEYS (id:<base64 of 32 bytes>, the same in every process) ` +
          `or provide ${file} (npm start creates it on first run); see README "Security model"`,
      );
    }
    ensurePrivateDir(opts.dataDir);
    if (writePrivateFileExclusive(file, `${newPayloadKeyEntry()}\n`)) source = 'created';
  } else tightenFileMode(file);
  return { keys: parsePayloadKeys(fs.readFileSync(file, 'utf8'), file), source, file };
}

/** Options of {@link AesGcmPayloadCodec}. */
export interface PayloadCodecOptions {
  /**
   * Pass unencrypted payloads through decode unchanged (histories written before encryption:
   * KESOKU_CODEC_ACCEPT_PLAINTEXT, and offline replay). Default false: they are refused.
   */
  acceptPlaintext?: boolean;
}

/** AES-256-GCM {@link PayloadCodec}; see the module comment for the format. */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly keys: PayloadKey[];
  /** Whether unencrypted payloads pass decode ({@link PayloadCodecOptions.acceptPlaintext}). */
  readonly acceptsPlaintext: boolean;

  /** @param keys the first encrypts; all decrypt. @throws ConfigError when empty or a key is not 32 bytes */
  constructor(keys: readonly PayloadKey[], opts: PayloadCodecOptions = {}) {
    if (keys.length === 0) throw new ConfigError('the payload codec needs at least one key');
    for (const k of keys)
      if (k.key.length !== 32) throw new ConfigError(`payload key ${k.id} is not 32 bytes`);
    this.keys = [...keys];
    this.acceptsPlaintext = opts.acceptPlaintext === true;
  }

  /** The id of the key that encrypts. */
  get currentKeyId(): string {
    return (this.keys[0] as PayloadKey).id;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { id, key } = this.keys[0] as PayloadKey;
    return payloads.map((p) => {
      const plain = temporal.api.common.v1.Payload.encode(p).finish();
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(id, 'utf8'));
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return {
        metadata: {
          encoding: Buffer.from(ENCRYPTED_ENCODING),
          'encryption-cipher': Buffer.from(CIPHER),
          [KEY_ID]: Buffer.from(id),
        },
        data: Buffer.concat([iv, body, cipher.getAuthTag()]),
      };
    });
  }

  /**
   * Payloads the server writes itself pass as they are: only the details of an activity cancelled before any
   * worker started it (`"ACTIVITY_ID_NOT_STARTED"`); refusing them would fail every workflow task of that run.
   * @throws PayloadDecryptionError `unencrypted` for a payload without the encrypted encoding (unless
   *   `acceptPlaintext`), `unknown_key` / `corrupt` for an encrypted one under an unknown key or with bad data
   */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      if (!isEncrypted(p)) {
        if (this.acceptsPlaintext || isServerCancelMarker(p)) return p;
        const encoding = Buffer.from(p.metadata?.encoding ?? new Uint8Array()).toString('utf8');
        throw new PayloadDecryptionError(
          'unencrypted',
          `a payload is not encrypted (encoding ${encoding || 'none'}): refused, since only holders of the payload ` +
            'keys send Kesoku payloads (a history written before encryption: KESOKU_CODEC_ACCEPT_PLAINTEXT=true once)',
        );
      }
      const id = Buffer.from(p.metadata?.[KEY_ID] ?? new Uint8Array()).toString('utf8');
      const k = this.keys.find((x) => x.id === id);
      if (!k) {
        throw new PayloadDecryptionError(
          'unknown_key',
          `a payload is encrypted with key id "${id}", which is not among this process's payload keys (${this.keys.map((x) => x.id).join(', ')})`,
        );
      }
      const data = Buffer.from(p.data ?? new Uint8Array());
      if (data.length < IV_BYTES + TAG_BYTES)
        throw new PayloadDecryptionError('corrupt', 'an encrypted payload is too short');
      try {
        const decipher = createDecipheriv('aes-256-gcm', k.key, data.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(id, 'utf8'));
        decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
        const plain = Buffer.concat([
          decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
          decipher.final(),
        ]);
        const inner = temporal.api.common.v1.Payload.decode(plain);
        return { metadata: inner.metadata ?? {}, data: inner.data ?? new Uint8Array() };
      } catch (err) {
        throw new PayloadDecryptionError(
          'corrupt',
          `an encrypted payload (key ${id}) failed authentication: ${(err as Error).message}`,
        );
      }
    });
  }
}

/** True when `p` carries the encrypted encoding. */
export function isEncrypted(p: Payload): boolean {
  const enc = p.metadata?.encoding;
  return enc !== undefined && Buffer.from(enc).toString('utf8') === ENCRYPTED_ENCODING;
}

/** The data converter every Kesoku client and worker uses: default converters plus this codec. */
export function dataConverterFor(keys: readonly PayloadKey[], opts: PayloadCodecOptions = {}): DataConverter {
  return { payloadCodecs: [new AesGcmPayloadCodec(keys, opts)] };
}

/** The server's plaintext details of an activity cancelled before it started: `"ACTIVITY_ID_NOT_STARTED"` as JSON. */
const SERVER_CANCEL_MARKER = JSON.stringify('ACTIVITY_ID_NOT_STARTED');

function isServerCancelMarker(p: Payload): boolean {
  const encoding = Buffer.from(p.metadata?.encoding ?? new Uint8Array()).toString('utf8');
  return (
    encoding === 'json/plain' &&
    Buffer.from(p.data ?? new Uint8Array()).toString('utf8') === SERVER_CANCEL_MARKER
  );
}
