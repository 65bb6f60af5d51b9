// The images tool results returned, as the model activity shows them: only the current turn's, only files kept
// in the session's own tool-output directory, never through a link, after the run of results they belong to.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withAttachments } from './attachments.ts';
import type { ProviderMessage } from '../../domain/provider-messages.ts';
import { PIXEL_PNG_BASE64 } from '../../test/fakes/mcp/tools.ts';

const data = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-tool-images-'));
afterAll(() => fs.rmSync(data, { recursive: true, force: true }));
const workspace = path.join(data, 'workspaces', 's1');
const output = path.join(data, 'tool-output', 's1');
fs.mkdirSync(workspace, { recursive: true });
fs.mkdirSync(output, { recursive: true });
const png = Buffer.from(PIXEL_PNG_BASE64, 'base64');
fs.writeFileSync(path.join(output, 'c1.1.png'), png);
fs.writeFileSync(path.join(data, 'secret.png'), png);
fs.symlinkSync(path.join(data, 'secret.png'), path.join(output, 'linked.png'));
fs.mkdirSync(path.join(data, 'tool-output', 's2'), { recursive: true });
fs.writeFileSync(path.join(data, 'tool-output', 's2', 'other.png'), png);

const image = (file: string) => ({ name: path.basename(file), content_type: 'image/png', path: file });
const tool = (id: string, file: string): ProviderMessage => ({
  role: 'tool',
  tool_call_id: id,
  name: 'mcp__fake__picture',
  content: `result ${id}`,
  attachments: [image(file)],
});

describe('images of tool results for the model', () => {
  const call = (ids: string[]): ProviderMessage => ({
    role: 'assistant',
    content: '',
    tool_calls: ids.map((id) => ({ id, name: 'mcp__fake__picture', arguments: {} })),
  });

  it('shows the current turn’s kept images after their results; links, other sessions and past turns are left out', async () => {
    const input = {
      system: 's',
      messages: [
        { role: 'user', content: 'earlier' },
        call(['old']),
        tool('old', path.join(output, 'c1.1.png')),
        { role: 'assistant', content: 'seen' },
        { role: 'user', content: 'now' },
        call(['c1', 'c2', 'c3', 'c4']),
        tool('c1', path.join(output, 'c1.1.png')),
        tool('c2', path.join(output, 'linked.png')),
        tool('c3', path.join(data, 'tool-output', 's2', 'other.png')),
        tool('c4', path.join(output, '..', '..', 'secret.png')),
      ] as ProviderMessage[],
    };
    const out = await withAttachments(input, workspace, { images: true });
    expect(out.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'tool',
      'tool',
      'tool',
      'user',
    ]);
    expect(out.messages.some((m) => 'attachments' in m)).toBe(false);
    const shown = out.messages.at(-1) as Extract<ProviderMessage, { role: 'user' }>;
    expect(shown.content).toBe('[The image that tool mcp__fake__picture returned (call c1), attached below]');
    expect(shown.images?.map((i) => Buffer.from(i.data))).toEqual([png]);
  });

  it('a model without images gets the results’ text only', async () => {
    const input = {
      system: 's',
      messages: [
        { role: 'user', content: 'now' },
        call(['c1']),
        tool('c1', path.join(output, 'c1.1.png')),
      ] as ProviderMessage[],
    };
    const out = await withAttachments(input, workspace, { images: false });
    expect(out.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });
});
