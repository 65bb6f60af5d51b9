/**
 * `npm run chat [-- --session NAME] [--url URL]`: the terminal client of Kesoku (docs/architecture.md "Processes"), a
 * REST API v1 client. See adapters/cli/README.md.
 *
 * Exit codes: 0 done; 1 a piped line was not sent or its turn did not end in time; 2 the API was not reachable
 * (or refused the token) at start; 64 bad options.
 */
import { KesokuApi } from './api-client.ts';
import { newSessionId, parseOptions, USAGE } from './options.ts';
import { createStyle } from './render.ts';
import { runRepl } from './repl.ts';
import { loadEnvFile } from '../../infra/env-file.ts';

// The settings file (.env) gives the client its API URL and token like every other Kesoku command.
try {
  loadEnvFile();
} catch (err) {
  process.stderr.write(`kesoku: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(64);
}

const parsed = parseOptions(process.argv.slice(2), process.env);
if (!parsed.ok) {
  process.stderr.write(`${parsed.error}\n\n${USAGE}\n`);
  process.exitCode = 64;
} else if (parsed.options.help) {
  process.stdout.write(`${USAGE}\n`);
} else {
  const o = parsed.options;
  const render = {
    style: createStyle(),
    columns: process.stdout.columns || 80,
    // Markdown is for people at a terminal; a pipe (a script, a log) gets the reply as written.
    markdown: process.stdout.isTTY === true && !o.plain,
  };
  process.stdout.on('resize', () => {
    render.columns = process.stdout.columns || render.columns;
  });
  const code = await runRepl({
    api: new KesokuApi({ baseUrl: o.url, token: o.token }),
    sessionId: o.session,
    sender: o.sender,
    input: process.stdin,
    output: process.stdout,
    errors: process.stderr,
    live: (o.live ?? process.stdout.isTTY === true) ? (process.stdout.isTTY ? 'region' : 'append') : 'off',
    render,
    history: o.history,
    turnTimeoutMs: o.turnTimeoutS * 1000,
    newSessionId: () => newSessionId(),
    freshSession: o.sessionGenerated,
  });
  process.exitCode = code;
  // Whatever still holds the event loop (a socket the HTTP client keeps alive) must not hold the exit.
  setTimeout(() => process.exit(code), 2_000).unref();
}
