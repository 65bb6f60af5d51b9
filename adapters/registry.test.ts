/**
 * The channel registry: descriptors are well-formed and unique, the workflow's capabilities come from each
 * descriptor's features, secrets and metadata keys come from the descriptors, generic code names no channel, and
 * no channel folder imports another (docs/adding-a-channel.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { inboundToMessage } from '../activities/persistence.ts';
import {
  CHANNELS,
  approvalDefaultOf,
  capabilitiesOf,
  channelSecretKeys,
  chatSessionPrefixes,
  loadChannelConfigs,
  platformMessageIdKeys,
} from './registry.ts';
import { API_CAPABILITIES, NO_CAPABILITIES } from '../domain/channels.ts';
import { ConfigError } from '../infra/config.ts';
import { redactPaths } from '../infra/logger.ts';
import { SessionClient } from '../infra/session-client.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

describe('the channel registry', () => {
  it('lists descriptors with unique ids and session prefixes of the form `<id>:`', () => {
    expect(CHANNELS.length).toBeGreaterThan(0);
    const ids = CHANNELS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    const prefixes = chatSessionPrefixes();
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const c of CHANNELS) {
      expect(c.id).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(c.id).not.toBe('api');
      // `<platform>:` — the chatbot id or the platform's own short name (`googlechat:` for `google_chat`).
      expect(c.sessionPrefix).toMatch(/^[a-z][a-z0-9]*:$/);
      expect(c.features.maxMessageLength).toBeGreaterThanOrEqual(32);
      expect(c.features.inlineDelivery).toBe(false);
    }
    // No prefix is a prefix of another: a session id belongs to one channel only.
    for (const a of prefixes) for (const b of prefixes) if (a !== b) expect(b.startsWith(a)).toBe(false);
  });

  it('parses every channel off from an empty environment, and names a bad variable', () => {
    for (const { channel, enabled } of loadChannelConfigs({})) expect(enabled, channel.id).toBe(false);
    expect(loadChannelConfigs({ DISCORD_TOKEN: 't' }).find((c) => c.channel.id === 'discord')?.enabled).toBe(
      true,
    );
    expect(() => loadChannelConfigs({ DISCORD_ALLOW_ALL: 'yes please' })).toThrow(ConfigError);
    expect(() => loadChannelConfigs({ DISCORD_ALLOW_ALL: 'yes please' })).toThrow(
      /DISCORD_ALLOW_ALL: must be true or false/,
    );
    expect(() => loadChannelConfigs({}, ['nosuch'])).toThrow(/unknown channel nosuch/);
    expect(loadChannelConfigs({}, ['discord']).map((c) => c.channel.id)).toEqual(['discord']);
  });

  it('gives the workflow the capabilities of the descriptor, the REST API its own, an unknown chatbot none', () => {
    for (const c of CHANNELS) {
      expect(capabilitiesOf(c.id)).toEqual({
        liveProgress: c.features.liveProgress,
        inlineDelivery: c.features.inlineDelivery,
      });
    }
    expect(capabilitiesOf('api')).toEqual(API_CAPABILITIES);
    expect(capabilitiesOf('nosuch')).toEqual(NO_CAPABILITIES);
    const address = { sessionId: 'discord:1', chatbotId: 'discord', channelId: '1' };
    const withRegistry = new SessionClient({
      client: {} as Client,
      taskQueue: 'q',
      capabilities: capabilitiesOf,
    });
    expect(withRegistry.workflowInput(address)).toMatchObject({ liveProgress: true, inlineDelivery: false });
    const apiOnly = new SessionClient({ client: {} as Client, taskQueue: 'q' });
    expect(apiOnly.workflowInput(address)).toMatchObject({ liveProgress: false, inlineDelivery: false });
    expect(apiOnly.workflowInput({ ...address, chatbotId: 'api' })).toMatchObject({ inlineDelivery: true });
  });

  it('redacts every channel secret and keeps the platform id under the channel metadata key', () => {
    expect(channelSecretKeys()).toContain('DISCORD_TOKEN');
    for (const key of channelSecretKeys()) expect(redactPaths(channelSecretKeys())).toContain(`*.${key}`);
    const keys = platformMessageIdKeys();
    expect(keys.discord).toBe('discord_message_id');
    const m = {
      id: 'x-1',
      content: 'hi',
      sender: 'alice',
      receivedAt: '2026-01-01T00:00:00Z',
      platformMessageId: '42',
    };
    const stored = inboundToMessage(
      { sessionId: 's:1', chatbotId: 'discord', channelId: '1' },
      m,
      keys.discord,
    );
    expect(stored.metadata).toEqual({ discord_message_id: '42' });
    const other = inboundToMessage(
      { sessionId: 'o:1', chatbotId: 'other', channelId: '1' },
      m,
      'other_msg_id',
    );
    expect(other.metadata).toEqual({ other_msg_id: '42' });
    expect(
      inboundToMessage({ sessionId: 'api1', chatbotId: 'api', channelId: 'api1' }, m).metadata,
    ).toBeNull();
  });

  it("takes a chatbot's default approval policy from its descriptor's decidesApprovals", () => {
    for (const c of CHANNELS)
      expect(approvalDefaultOf(c.id), c.id).toBe(c.features.decidesApprovals ? 'writes' : 'off');
    // The chat channels of today all decide where they talk (buttons, typed /approve).
    expect(CHANNELS.map((c) => approvalDefaultOf(c.id))).toEqual(CHANNELS.map(() => 'writes'));
    expect(approvalDefaultOf('api')).toBe('writes');
    expect(approvalDefaultOf('cli', 'local')).toBe('off');
    expect(approvalDefaultOf('cli', 'alice')).toBe('writes');
    expect(approvalDefaultOf('cli')).toBe('writes');
    expect(approvalDefaultOf('some_new_channel')).toBe('off');
  });

  it('names no channel in generic code', () => {
    const generic = [
      'workflows',
      'activities',
      'api',
      'infra',
      'workers',
      'domain/channels.ts',
      'domain/tool-approval.ts',
    ];
    // The message model's literal metadata key, and the tool sandbox's list of secret variable prefixes.
    const allowed = [/discord_message_id/, /SECRET_PREFIX = /];
    const offenders: string[] = [];
    const visit = (p: string) => {
      const full = path.join(ROOT, p);
      if (fs.statSync(full).isDirectory()) {
        for (const f of fs.readdirSync(full)) visit(path.join(p, f));
        return;
      }
      if (!p.endsWith('.ts') || p.endsWith('.test.ts')) return;
      for (const [i, line] of fs.readFileSync(full, 'utf8').split('\n').entries()) {
        const code = line.trim();
        if (code.startsWith('*') || code.startsWith('/*') || code.startsWith('//')) continue;
        if (/discord|google_?chat|wechat/i.test(code) && !allowed.some((a) => a.test(code)))
          offenders.push(`${p}:${i + 1}: ${code}`);
      }
    };
    for (const p of generic) visit(p);
    expect(offenders).toEqual([]);
  });
});

describe('the channel folders', () => {
  // Every folder of adapters/ is a channel (or a client app) that stands alone: it may use the kit and the
  // rest of the house, never another channel's folder; the kit uses no channel. Deleting a channel is then
  // removing its folder and its line in adapters/registry.ts.
  it('import no other channel, and the kit imports none', () => {
    const adapters = path.join(ROOT, 'adapters');
    const folders = fs
      .readdirSync(adapters, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    const offenders: string[] = [];
    const visit = (folder: string, dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (e.name !== 'node_modules' && e.name !== 'dist') visit(folder, full);
          continue;
        }
        if (!/\.(ts|tsx)$/.test(e.name)) continue;
        const src = fs.readFileSync(full, 'utf8');
        for (const m of src.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
          const target = path.relative(adapters, path.resolve(path.dirname(full), m[1]!));
          const into = target.split(path.sep)[0];
          if (into !== undefined && into !== folder && folders.includes(into) && into !== 'kit')
            offenders.push(`${path.relative(ROOT, full)} imports ${m[1]}`);
          if (folder === 'kit' && into !== 'kit' && folders.includes(into ?? ''))
            offenders.push(`${path.relative(ROOT, full)} imports ${m[1]}`);
        }
      }
    };
    expect(folders).toContain('kit');
    for (const f of folders) visit(f, path.join(adapters, f));
    expect(offenders).toEqual([]);
  });
});
