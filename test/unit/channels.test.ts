/**
 * The channel registry and kit: descriptors are well-formed and unique, the workflow's capabilities come from
 * each descriptor's features, secrets and metadata keys come from the descriptors, and generic code names no
 * channel (docs/adding-a-channel.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { inboundToMessage } from '../../activities/persistence.ts';
import { turnEndOf } from '../../adapters/kit/live-status.ts';
import { presentationFor } from '../../adapters/kit/presentation.ts';
import { measure, splitText } from '../../adapters/kit/split.ts';
import {
  CHANNELS,
  capabilitiesOf,
  channelSecretKeys,
  chatSessionPrefixes,
  loadChannelConfigs,
  platformMessageIdKeys,
} from '../../adapters/registry.ts';
import { API_CAPABILITIES, NO_CAPABILITIES } from '../../domain/channels.ts';
import type { Message } from '../../domain/message.ts';
import { ConfigError } from '../../infra/config.ts';
import { redactPaths } from '../../infra/logger.ts';
import { SessionClient } from '../../infra/session-client.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

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
      expect(c.sessionPrefix).toBe(`${c.id}:`);
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

  it('names no channel in generic code', () => {
    const generic = ['workflows', 'activities', 'api', 'infra', 'workers', 'domain/channels.ts'];
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

describe('the channel kit', () => {
  it('splits by UTF-8 bytes and by code points without losing or tearing text', () => {
    const text = `${'漢字かな交じり文。'.repeat(300)}\n\n${'😀 emoji '.repeat(400)}`;
    const bytes = splitText(text, { maxLength: 2048, unit: 'utf8_bytes' });
    expect(bytes.length).toBeGreaterThan(1);
    for (const c of bytes) expect(measure(c, 'utf8_bytes')).toBeLessThanOrEqual(2048);
    expect(bytes.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
    for (const c of bytes) expect(c.isWellFormed()).toBe(true);
    const points = splitText(text, { maxLength: 1000, unit: 'codepoints' });
    for (const c of points) expect(measure(c, 'codepoints')).toBeLessThanOrEqual(1000);
    expect(points.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
    // Plain text: a ``` is just text (no fences added).
    const plain = splitText(`\`\`\`\n${'line\n'.repeat(100)}`, { maxLength: 64, unit: 'utf8_bytes' });
    expect(plain.slice(1).every((c) => !c.startsWith('```'))).toBe(true);
  });

  it('asks the visibility matrix, or the features of a channel without a column', () => {
    const thought = {
      type: 'thought',
      role: 'assistant',
      sender: 'agent',
      chatbot_id: 'x',
    } as unknown as Message;
    const reply = {
      type: 'text',
      role: 'assistant',
      sender: 'agent',
      chatbot_id: 'x',
      metadata: null,
    } as unknown as Message;
    expect(presentationFor('discord', thought)).toBe('live');
    expect(presentationFor('wechat', thought)).toBe('silent');
    expect(presentationFor('newchat', thought, { liveProgress: true, editsInPlace: true })).toBe('live');
    expect(presentationFor('newchat', thought, { liveProgress: false, editsInPlace: false })).toBe('silent');
    expect(presentationFor('newchat', reply)).toBe('shown');
  });

  it('says when a delivered message ends its turn, and how running tool lines end', () => {
    const m = (over: Partial<Message>) =>
      ({
        id: 't1:x',
        turn_id: 't1',
        type: 'text',
        role: 'assistant',
        sender: 'agent',
        metadata: null,
        ...over,
      }) as Message;
    expect(turnEndOf(m({}))).toBeNull();
    expect(turnEndOf(m({ metadata: { failure_kind: 'model' } }))).toBe('failed');
    expect(turnEndOf(m({ id: 't1:notice', sender: 'Notification' }))).toBe('interrupted');
    expect(turnEndOf(m({ id: 'other', sender: 'Notification' }))).toBe(false);
    expect(turnEndOf(m({ type: 'thought' }))).toBe(false);
    expect(turnEndOf(m({ turn_id: null }))).toBe(false);
  });
});
