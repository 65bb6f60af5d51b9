/**
 * MCP call results as tool results (activities/mcp/results.ts): text passed on, `isError` a failed result,
 * images and other binary content named and kept, structured content as JSON, long results cut with a note
 * naming the file that keeps all of it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpToolResult } from './results.ts';
import { PIXEL_PNG_BASE64 } from '../../test/fakes/mcp/tools.ts';

const outputDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-mcp-results-'));

describe('mcpToolResult', () => {
  it('passes text on and counts as a success', async () => {
    const r = await mcpToolResult(
      {
        content: [
          { type: 'text', text: 'Hello, Ada!' },
          { type: 'text', text: 'second' },
        ],
      },
      'fake › greet',
      { maxModelOutputBytes: 1000 },
    );
    expect(r).toEqual({ content: 'Hello, Ada!\nsecond', summary: 'Hello, Ada!', ok: true });
  });

  it('makes isError a failed result the model reads', async () => {
    const r = await mcpToolResult(
      { isError: true, content: [{ type: 'text', text: 'the service is down\nretry later' }] },
      'fake › fail',
      { maxModelOutputBytes: 1000 },
    );
    expect(r).toEqual({
      content: 'Error: the service is down\nretry later',
      summary: 'error: the service is down',
      ok: false,
    });
    const bare = await mcpToolResult({ isError: true, content: [] }, 'fake › fail', {
      maxModelOutputBytes: 100,
    });
    expect(bare).toMatchObject({ content: 'Error: fake › fail failed', ok: false });
  });

  it('names an image for the model, keeps its bytes beside the call’s output and returns it as an image', async () => {
    const dir = outputDir();
    const r = await mcpToolResult(
      {
        content: [
          { type: 'text', text: 'a tiny picture' },
          { type: 'image', data: PIXEL_PNG_BASE64, mimeType: 'image/png' },
        ],
      },
      'fake › picture',
      { maxModelOutputBytes: 1000, outputDir: dir, callId: 'call/1' },
    );
    const kept = path.join(dir, 'call_1.1.png');
    expect(r.content).toBe(
      `a tiny picture\n[image: image/png, 70 bytes; kept at ${kept}; attached after this turn's tool results]`,
    );
    expect(fs.readFileSync(kept)).toEqual(Buffer.from(PIXEL_PNG_BASE64, 'base64'));
    expect(r.ok).toBe(true);
    expect(r.images).toEqual([{ name: 'call_1.1.png', content_type: 'image/png', size: 70, path: kept }]);
    // Not kept (no output dir): named only, and nothing for the model to open.
    const unkept = await mcpToolResult(
      { content: [{ type: 'image', data: PIXEL_PNG_BASE64, mimeType: 'image/png' }] },
      'fake › picture',
      { maxModelOutputBytes: 1000 },
    );
    expect(unkept.content).toBe('[image: image/png, 70 bytes; not shown to the model]');
    expect(unkept.images).toBeUndefined();
  });

  it('gives structured content as JSON when there is no text, and resources by their link', async () => {
    const structured = await mcpToolResult(
      { content: [], structuredContent: { temperature: 21 } },
      'wx › now',
      { maxModelOutputBytes: 1000 },
    );
    expect(JSON.parse(structured.content)).toEqual({ temperature: 21 });
    const linked = await mcpToolResult(
      {
        content: [
          { type: 'resource_link', name: 'report', uri: 'file:///r.pdf' },
          { type: 'resource', resource: { uri: 'mem://note', text: 'remember' } },
        ],
      },
      'docs › find',
      { maxModelOutputBytes: 1000 },
    );
    expect(linked.content).toBe('[resource: report <file:///r.pdf>]\n[resource <mem://note>]\nremember');
    const empty = await mcpToolResult({ content: [] }, 'x › y', { maxModelOutputBytes: 10 });
    expect(empty).toMatchObject({ content: '(no output)', summary: 'no output', ok: true });
  });

  it('cuts a long result at the model’s share (never inside a character) and keeps all of it', async () => {
    const dir = outputDir();
    const text = `${'é'.repeat(600)}END`;
    const r = await mcpToolResult({ content: [{ type: 'text', text }] }, 'fake › big', {
      maxModelOutputBytes: 1001,
      outputDir: dir,
      callId: 'c1',
    });
    const kept = path.join(dir, 'c1.txt');
    expect(r.fullOutputPath).toBe(kept);
    expect(fs.readFileSync(kept, 'utf8')).toBe(text);
    expect(r.content).toBe(
      `${'é'.repeat(500)}\n[… result cut: the first 1000 of 1203 bytes are shown; the whole result is kept at ${kept}]`,
    );
  });
});
