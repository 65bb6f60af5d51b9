/**
 * `npx kesoku doctor`: checks a setup before (or while) it runs and names each problem with its fix — the
 * settings, Node, the Temporal CLI or server, Go, the sandbox (bubblewrap and user namespaces, by running a
 * command in it as the worker would), the ports `npm start` needs, servers a killed Kesoku left running,
 * the model (one real call), and the chat channels' credentials. Exit code 1 when there is a problem.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { channelVariableNames, loadChannelConfigs } from '../../adapters/registry.ts';
import { prepareSandbox } from '../../activities/tools/sandbox.ts';
import { type Config, loadConfig, requireLlmConfig, unknownSettings } from '../../infra/config.ts';
import { CHECKOUT_DIR, loadEnvFile } from '../../infra/env-file.ts';
import { instanceOf } from '../../infra/instance-lock.ts';
import { leftoverPostgres } from '../../infra/postgres-server.ts';
import { leftoverDevServer, resolveTemporalBinary, waitForTemporal } from '../../infra/temporal-server.ts';
import { resolveTemporalSettings } from '../../infra/temporal-envconfig.ts';
import { sandboxSettingsFrom } from '../../activities/tools/sandbox-settings.ts';
import { checkModel, portInUse } from './common.ts';

export const DOCTOR_HELP = `usage: npx kesoku doctor [--no-model]

Checks this setup and names each problem with its fix: settings (.env and the environment), Node.js, the
Temporal CLI or server, Go, bubblewrap and user namespaces, the ports npm start needs, servers a killed Kesoku
left running, the model (one real call), and the chat channels' credentials.

options:
  --no-model   do not call the model (only check that it is configured)
  -h, --help   this text

Exit codes: 0 no problem (warnings allowed), 1 at least one problem, 2 bad options.`;

/** One check's outcome. */
export interface Finding {
  check: string;
  level: 'ok' | 'warn' | 'problem';
  detail: string;
  /** What to do about a warning or problem. */
  fix?: string;
}

const ok = (check: string, detail: string): Finding => ({ check, level: 'ok', detail });
const warn = (check: string, detail: string, fix?: string): Finding => ({
  check,
  level: 'warn',
  detail,
  fix,
});
const problem = (check: string, detail: string, fix: string): Finding => ({
  check,
  level: 'problem',
  detail,
  fix,
});

function which(cmd: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const f = path.join(dir, cmd);
    try {
      fs.accessSync(f, fs.constants.X_OK);
      if (fs.statSync(f).isFile()) return f;
    } catch {
      // not here
    }
  }
  return null;
}

function nodeCheck(): Finding {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const project = path.join(CHECKOUT_DIR, 'node_modules', '.bin', 'node');
  if (major > 22 || (major === 22 && minor >= 18))
    return ok(
      'Node.js',
      `${process.version}${fs.existsSync(project) ? ' (the project’s own, from npm install)' : ''}`,
    );
  return problem(
    'Node.js',
    `${process.version} cannot run Kesoku (needs 22.18 or later)`,
    'run npm install (it brings Node 24) and use npx kesoku / npm scripts',
  );
}

async function temporalChecks(cfg: Config): Promise<Finding[]> {
  const settings = resolveTemporalSettings();
  if (settings.address) {
    try {
      await waitForTemporal(settings.address, 3000);
      return [ok('Temporal', `server at ${settings.address} answers (TEMPORAL_ADDRESS)`)];
    } catch {
      return [
        problem(
          'Temporal',
          `no answer from ${settings.address} (TEMPORAL_ADDRESS)`,
          'start that server, fix TEMPORAL_ADDRESS (and its TLS/API key settings), or unset it so npm start runs a dev server',
        ),
      ];
    }
  }
  const go = which('go') ?? (fs.existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null);
  const goVersion = go ? spawnSync(go, ['version'], { encoding: 'utf8' }).stdout.trim() : '';
  let binary: Awaited<ReturnType<typeof resolveTemporalBinary>> = null;
  try {
    binary = await resolveTemporalBinary({
      cliPath: cfg.KESOKU_TEMPORAL_CLI,
      allowBuild: false,
      allowDownload: false,
    });
  } catch (err) {
    return [
      problem(
        'Temporal CLI',
        (err as Error).message,
        'point KESOKU_TEMPORAL_CLI at a `temporal` binary, or unset it',
      ),
    ];
  }
  const findings: Finding[] = [];
  if (binary) findings.push(ok('Temporal CLI', `${binary.path} (${binary.source})`));
  else if (go)
    findings.push(
      warn(
        'Temporal CLI',
        'not installed yet: the first npm start downloads it, or builds it with Go (a few minutes, once)',
        'npm run temporal:install does that step now',
      ),
    );
  else
    findings.push(
      problem(
        'Temporal CLI',
        'no `temporal` binary and no Go to build one (the download needs the internet)',
        'install Go (https://go.dev/dl) or the Temporal CLI (`brew install temporal`), or set KESOKU_TEMPORAL_CLI / TEMPORAL_ADDRESS',
      ),
    );
  findings.push(
    go
      ? ok('Go', goVersion || go)
      : binary
        ? ok('Go', 'not installed (not needed: the Temporal CLI is there)')
        : warn(
            'Go',
            'not installed',
            'install Go (https://go.dev/dl) so Kesoku can build the Temporal CLI offline',
          ),
  );
  return findings;
}

async function sandboxCheck(cfg: Config): Promise<Finding> {
  if (cfg.KESOKU_SANDBOX === 'off')
    return warn(
      'sandbox',
      'KESOKU_SANDBOX=off: tool commands run without isolation',
      'unset KESOKU_SANDBOX to sandbox them with bubblewrap',
    );
  const sandbox = await prepareSandbox({ ...sandboxSettingsFrom(cfg), mode: 'auto' });
  if (sandbox.kind === 'bwrap')
    return ok('sandbox', `bubblewrap works (${sandbox.bwrapPath}; a trial command ran in it)`);
  const reason = sandbox.reason ?? 'unknown';
  const noBwrap = /not installed/.test(reason) && /bwrap/.test(reason);
  return problem(
    'sandbox',
    `tool commands would run WITHOUT a sandbox: ${reason}`,
    noBwrap
      ? 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or set KESOKU_SANDBOX=off to accept unsandboxed commands'
      : /namespaces/.test(reason)
        ? 'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu ≥ 23.10 sysctl kernel.apparmor_restrict_unprivileged_userns=0), or set KESOKU_SANDBOX=off'
        : 'install util-linux (prlimit, setpriv), or set KESOKU_SANDBOX=off',
  );
}

/**
 * The configured ports that are taken. A port of a server this data dir left running (`leftovers`: the Temporal
 * dev server's and the embedded Postgres's pids, see {@link leftoverChecks}) is a warning pointing at that
 * leftover, whose fix (`npm start`) frees it, not a problem asking to change the port.
 */
async function portChecks(
  cfg: Config,
  runningPid: number | null,
  leftovers: { temporal: number | null; postgres: number | null },
): Promise<Finding[]> {
  const embeddedTemporal = !resolveTemporalSettings().address;
  // Each port with the leftover server of this data dir that would hold it (a description), if there is one.
  const ports: [string, number, string | null][] = [];
  const devServer =
    leftovers.temporal !== null ? `the leftover Temporal dev server (pid ${leftovers.temporal})` : null;
  if (cfg.KESOKU_API_PORT !== 0) ports.push(['KESOKU_API_PORT', cfg.KESOKU_API_PORT, null]);
  if (embeddedTemporal)
    ports.push(
      ['KESOKU_TEMPORAL_PORT', cfg.KESOKU_TEMPORAL_PORT, devServer],
      ['KESOKU_TEMPORAL_UI_PORT', cfg.KESOKU_TEMPORAL_UI_PORT, devServer],
    );
  if (!cfg.DATABASE_URL)
    ports.push([
      'KESOKU_POSTGRES_PORT',
      cfg.KESOKU_POSTGRES_PORT,
      leftovers.postgres !== null ? `the leftover embedded Postgres (pid ${leftovers.postgres})` : null,
    ]);
  if (cfg.KESOKU_METRICS_PORT) ports.push(['KESOKU_METRICS_PORT', cfg.KESOKU_METRICS_PORT, null]);
  const taken: Finding[] = [];
  for (const [name, port, leftover] of ports) {
    if (!(await portInUse(port))) continue;
    taken.push(
      runningPid !== null
        ? ok(`port ${port}`, `in use by the running Kesoku (pid ${runningPid})`)
        : leftover !== null
          ? warn(
              `port ${port}`,
              `${name}=${port} is in use, most likely by ${leftover} of this data dir (see "leftover server")`,
              'npm start stops the leftover, which frees the port',
            )
          : problem(
              `port ${port}`,
              `${name}=${port} is in use by another program`,
              `stop that program, or set ${name} to a free port in .env`,
            ),
    );
  }
  return taken.length > 0 ? taken : [ok('ports', `free: ${ports.map(([, p]) => p).join(', ')}`)];
}

/** The pids of the servers a killed Kesoku of this data dir left running (null: none). */
function leftoversOf(cfg: Config): { temporal: number | null; postgres: number | null } {
  return {
    temporal: leftoverDevServer(path.join(cfg.KESOKU_DATA_DIR, 'temporal.db')),
    postgres: leftoverPostgres(path.join(cfg.KESOKU_DATA_DIR, 'postgres')),
  };
}

function leftoverChecks(
  cfg: Config,
  runningPid: number | null,
  { temporal, postgres }: { temporal: number | null; postgres: number | null },
): Finding[] {
  if (runningPid !== null) return [ok('Kesoku', `running from ${cfg.KESOKU_DATA_DIR} (pid ${runningPid})`)];
  const findings: Finding[] = [];
  if (temporal !== null)
    findings.push(
      problem(
        'leftover server',
        `a Temporal dev server (pid ${temporal}) of ${cfg.KESOKU_DATA_DIR} is still running, left by a Kesoku that was killed`,
        `npm start stops it and starts afresh; or stop it yourself: kill ${temporal}`,
      ),
    );
  if (postgres !== null)
    findings.push(
      problem(
        'leftover server',
        `an embedded Postgres (pid ${postgres}) of ${cfg.KESOKU_DATA_DIR} is still running, left by a Kesoku that was killed`,
        `npm start stops it and starts afresh; or stop it yourself: kill -INT ${postgres}`,
      ),
    );
  return findings.length > 0 ? findings : [ok('leftover servers', 'none')];
}

async function modelCheck(cfg: Config, call: boolean, demoPid: number | null): Promise<Finding> {
  let llm;
  try {
    llm = requireLlmConfig(cfg);
  } catch (err) {
    if (demoPid !== null)
      return ok(
        'model',
        `the running Kesoku (pid ${demoPid}) answers with the fake model (npm run demo); for a real one: npx kesoku onboard`,
      );
    return problem(
      'model',
      (err as Error).message,
      'npx kesoku onboard (or npm run demo to try the fake model)',
    );
  }
  const what = `${llm.model} (${llm.provider}${llm.baseUrl ? ` at ${llm.baseUrl}` : ''})`;
  if (!call) return ok('model', `${what}; not called (--no-model)`);
  const check = await checkModel(llm, 20_000);
  return check.ok
    ? ok('model', `${what} answered in ${(check.ms / 1000).toFixed(1)} s`)
    : problem(
        'model',
        `${what} did not answer: ${check.reason}`,
        'check the key, the model name and the base URL (npx kesoku onboard --force rewrites them)',
      );
}

/** Format checks of the enabled channels' credentials (their schemas have parsed them already). */
function channelChecks(env: NodeJS.ProcessEnv): Finding[] {
  const findings: Finding[] = [];
  let channels;
  try {
    channels = loadChannelConfigs(env);
  } catch (err) {
    return [problem('channels', (err as Error).message, 'fix the named variables (docs/channels.md)')];
  }
  for (const c of channels) {
    if (!c.enabled) continue;
    const issues: string[] = [];
    if (
      c.channel.id === 'discord' &&
      !/^[\w-]{20,}\.[\w-]{4,}\.[\w-]{20,}$/.test(env.DISCORD_TOKEN?.trim() ?? '')
    )
      issues.push('DISCORD_TOKEN does not look like a bot token (three dot-separated parts)');
    if (c.channel.id === 'google_chat') {
      const file = env.GOOGLE_CHAT_CREDENTIALS_FILE?.trim() ?? '';
      try {
        const key = JSON.parse(fs.readFileSync(file, 'utf8')) as {
          client_email?: string;
          private_key?: string;
        };
        if (!key.client_email || !key.private_key)
          issues.push(`${file} is not a service-account key (no client_email / private_key)`);
      } catch (err) {
        issues.push(`GOOGLE_CHAT_CREDENTIALS_FILE=${file}: ${(err as Error).message}`);
      }
    }
    if (c.channel.id === 'wechat') {
      if (!/^wx[0-9a-f]{16}$/i.test(env.WECHAT_APP_ID?.trim() ?? ''))
        issues.push('WECHAT_APP_ID does not look like an AppID (wx + 16 hex digits)');
      const aes = env.WECHAT_ENCODING_AES_KEY?.trim();
      if (aes && !/^[A-Za-z0-9]{43}$/.test(aes))
        issues.push('WECHAT_ENCODING_AES_KEY must be 43 letters or digits');
    }
    findings.push(
      issues.length === 0
        ? ok(c.channel.title, 'on; credentials present')
        : problem(
            c.channel.title,
            issues.join('; '),
            `correct them in .env (docs/channels.md "${c.channel.title}")`,
          ),
    );
  }
  const off = channels.filter((c) => !c.enabled).map((c) => c.channel.title);
  if (off.length > 0) findings.push(ok('channels off', off.join(', ')));
  return findings;
}

/** Runs every check. `env` must already hold the settings file's values. */
export async function runChecks(env: NodeJS.ProcessEnv, opts: { callModel: boolean }): Promise<Finding[]> {
  const findings: Finding[] = [];
  const unknown = unknownSettings(env, channelVariableNames());
  for (const line of unknown)
    findings.push(
      warn('settings', line, 'rename it (docs/configuration.md lists every setting) or remove it'),
    );
  let cfg: Config;
  try {
    cfg = loadConfig(env);
  } catch (err) {
    findings.push(
      problem('configuration', (err as Error).message, 'fix the named variables in .env or the environment'),
    );
    findings.push(nodeCheck());
    return findings;
  }
  findings.push(ok('configuration', 'valid'));
  findings.push(nodeCheck());
  const instance = instanceOf(cfg.KESOKU_DATA_DIR);
  const runningPid = instance?.live ? instance.info.pid : null;
  findings.push(...(await temporalChecks(cfg)));
  findings.push(await sandboxCheck(cfg));
  const leftovers = runningPid === null ? leftoversOf(cfg) : { temporal: null, postgres: null };
  findings.push(...(await portChecks(cfg, runningPid, leftovers)));
  findings.push(...leftoverChecks(cfg, runningPid, leftovers));
  const demoPid = instance?.live && instance.info.fakeModel === true ? instance.info.pid : null;
  findings.push(await modelCheck(cfg, opts.callModel, demoPid));
  findings.push(...channelChecks(env));
  return findings;
}

/** Runs `doctor` with `argv` (after the command name). @returns the exit code */
export async function doctor(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: { 'no-model': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    process.stderr.write(`kesoku: ${(err as Error).message}\n\n${DOCTOR_HELP}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${DOCTOR_HELP}\n`);
    return 0;
  }
  let loaded;
  try {
    loaded = loadEnvFile(process.env);
  } catch (err) {
    process.stdout.write(
      `✗ settings: ${(err as Error).message}\n    fix: point KESOKU_ENV_FILE at an existing file, or unset it\n`,
    );
    return 1;
  }
  const out = (s: string) => process.stdout.write(s);
  out(`Kesoku doctor: ${CHECKOUT_DIR}\n`);
  out(
    loaded.file
      ? `  settings file ${loaded.file}${loaded.applied.length ? ` (${loaded.applied.length} settings)` : ''}\n`
      : '  settings file: none (the environment only)\n',
  );
  const findings = await runChecks(process.env, { callModel: values['no-model'] !== true });
  const mark = { ok: '✓', warn: '!', problem: '✗' } as const;
  const width = Math.max(...findings.map((f) => f.check.length));
  for (const f of findings) {
    out(`${mark[f.level]} ${f.check.padEnd(width)}  ${f.detail}\n`);
    if (f.fix) out(`  ${' '.repeat(width)}  fix: ${f.fix}\n`);
  }
  const problems = findings.filter((f) => f.level === 'problem').length;
  const warnings = findings.filter((f) => f.level === 'warn').length;
  out(
    problems > 0
      ? `\n${problems} problem${problems === 1 ? '' : 's'}${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}.\n`
      : `\nNo problems${warnings ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}.\n`,
  );
  return problems > 0 ? 1 : 0;
}
