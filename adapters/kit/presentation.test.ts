// What a channel shows of a message: its column of the visibility matrix, or what its features imply.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../domain/message.ts';
import { presentationFor } from './presentation.ts';

describe('presentationFor', () => {
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
});
