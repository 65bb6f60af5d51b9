/**
 * The tools of the fake MCP servers (stdio-server.ts, http-server.ts), registered on a real SDK `McpServer`:
 * - `greet {name}`: "Hello, <name>!";
 * - `fail`: a result with `isError: true`;
 * - `hang`: never answers; when the client cancels (`notifications/cancelled`) it records `cancelled hang`;
 * - `crash`: ends the server's process in the middle of the call (`onCrash`);
 * - `slow {ms, tag}`: answers after `ms` milliseconds;
 * - `picture`: a text block and a 1×1 PNG;
 * - `big {bytes}`: that many bytes of text;
 * - `whoami {paths}`: the server's uid, cwd, environment variable names and which of `paths` it can see;
 * - one `echo` tool per name in `extraTools`, answering `called <its name>`.
 * Every call and cancellation is passed to `record` (`call <tool>`, `cancelled <tool>`).
 */
import fs from 'node:fs';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export interface FakeToolHooks {
  record(event: string): void;
  /** What `crash` does: end the process (stdio) or drop the connection (HTTP). */
  onCrash(): void;
  extraTools?: readonly string[];
}

/** A 1×1 transparent PNG. */
export const PIXEL_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export function registerFakeTools(server: McpServer, hooks: FakeToolHooks): void {
  const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
  server.registerTool(
    'greet',
    { description: 'Greets someone by name.', inputSchema: { name: z.string().describe('Who to greet') } },
    async ({ name }) => {
      hooks.record('call greet');
      return text(`Hello, ${name}!`);
    },
  );
  server.registerTool('fail', { description: 'Always fails.' }, async () => {
    hooks.record('call fail');
    return { isError: true, content: [{ type: 'text' as const, text: 'the greeting service is down' }] };
  });
  server.registerTool('hang', { description: 'Never answers.' }, async (extra) => {
    hooks.record('call hang');
    await new Promise<void>((resolve) => {
      extra.signal.addEventListener('abort', () => {
        hooks.record('cancelled hang');
        resolve();
      });
    });
    return text('cancelled');
  });
  server.registerTool('crash', { description: 'Crashes the server.' }, async () => {
    hooks.record('call crash');
    hooks.onCrash();
    return new Promise<never>(() => undefined);
  });
  server.registerTool(
    'slow',
    {
      description: 'Answers after a while.',
      inputSchema: { ms: z.number().int().min(0), tag: z.string().optional() },
    },
    async ({ ms, tag }) => {
      hooks.record(`call slow ${tag ?? ''}`.trim());
      await new Promise((r) => setTimeout(r, ms));
      return text(`slept ${ms} ms`);
    },
  );
  server.registerTool('picture', { description: 'Returns a picture.' }, async () => {
    hooks.record('call picture');
    return {
      content: [
        { type: 'text' as const, text: 'a tiny picture' },
        { type: 'image' as const, data: PIXEL_PNG_BASE64, mimeType: 'image/png' },
      ],
    };
  });
  server.registerTool(
    'big',
    { description: 'Returns a long text.', inputSchema: { bytes: z.number().int().min(1) } },
    async ({ bytes }) => {
      hooks.record('call big');
      return text('x'.repeat(bytes - 3) + 'END');
    },
  );
  server.registerTool(
    'whoami',
    { description: 'Describes the process.', inputSchema: { paths: z.array(z.string()).optional() } },
    async ({ paths }) => {
      hooks.record('call whoami');
      const seen = Object.fromEntries((paths ?? []).map((p) => [p, fs.existsSync(p)]));
      return text(
        JSON.stringify({
          uid: process.getuid?.(),
          cwd: process.cwd(),
          home: process.env.HOME,
          env: Object.keys(process.env).sort(),
          seen,
        }),
      );
    },
  );
  for (const name of hooks.extraTools ?? []) {
    server.registerTool(name, { description: `The tool named ${name}.` }, async () => {
      hooks.record(`call ${name}`);
      return text(`called ${name}`);
    });
  }
}
