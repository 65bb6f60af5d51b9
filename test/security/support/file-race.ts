/**
 * The link-flip race against the file tools: a command in the sandbox flips the link `d` between a directory of
 * the workspace (`real`, holding a decoy) and the data dir's real path, as fast as it can, while many parallel
 * `read_file("d/payload-keys")` and `write_file("d/planted-by-write_file")` calls run for a fixed time. Counts
 * what the calls saw. Run in the test process (as root) and, through `setpriv`, as another uid.
 *
 * `node --input-type=module -e 'import(<this file>).then((m) => m.main())' <dataDir> <seconds>` prints the counts
 * as JSON.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readFileTool, writeFileTool } from '../../../activities/tools/files.ts';
import { defaultSandboxSettings, prepareSandbox } from '../../../activities/tools/sandbox.ts';
import { runShellCommand } from '../../../activities/tools/shell.ts';

/** The data dir's secret the race tries to read; never in a result. */
export const SECRET = 'k1:REAL-PAYLOAD-KEY-FROM-DATA-DIR';
/** What `real/payload-keys` in the workspace holds. */
export const DECOY = 'DECOY-IN-WORKSPACE';
/** The file `write_file` tries to create in the data dir. */
export const PLANTED = 'planted-by-write_file';

export interface RaceCounts {
  leaked: number;
  decoy: number;
  refused: number;
  other: number;
  writes: number;
  /** Files named {@link PLANTED} found outside the workspace afterwards. */
  plantedOutside: number;
  /** Link flips the command made (so the race really ran). */
  flips: number;
}

/** Runs the race for `seconds` with `parallel` calls at a time in a fresh session of `dataDir`. */
export async function runRace(dataDir: string, seconds: number, parallel = 20): Promise<RaceCounts> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dataDir, 'payload-keys'), `${SECRET}\n`, { mode: 0o600 });
  const realData = fs.realpathSync(dataDir);
  const sandbox = await prepareSandbox(defaultSandboxSettings(dataDir, { mode: 'required' }));
  const workspaceDir = path.join(dataDir, 'workspaces', `race-${process.pid}`);
  const ctx = {
    workspaceDir,
    defaultTimeoutMs: (seconds + 30) * 1000,
    maxModelOutputBytes: 16 * 1024,
    maxStoredOutputBytes: 1024 * 1024,
    sandbox,
  };
  const setup = await runShellCommand(
    { command: `mkdir -p real && echo ${DECOY} > real/payload-keys && ln -sfn real d && echo ready` },
    ctx,
  );
  if (!setup.stdout.includes('ready')) throw new Error(`setup failed: ${setup.content}`);

  const stop = new AbortController();
  const flipper = runShellCommand(
    {
      command:
        `n=0; end=$(( $(date +%s) + ${seconds + 2} )); while [ $(date +%s) -lt $end ]; do ` +
        `ln -sfn ${realData} d.new && mv -Tf d.new d; ln -sfn real d.new && mv -Tf d.new d; n=$((n+2)); ` +
        `done; echo flips=$n`,
      timeout_s: seconds + 20,
    },
    { ...ctx, signal: stop.signal },
  );

  const counts: RaceCounts = {
    leaked: 0,
    decoy: 0,
    refused: 0,
    other: 0,
    writes: 0,
    plantedOutside: 0,
    flips: 0,
  };
  const tools = { workspaceDir, sandbox };
  const deadline = Date.now() + seconds * 1000;
  const one = async (i: number) => {
    try {
      if (i % 4 === 3) {
        await writeFileTool({ path: `d/${PLANTED}`, content: 'x' }, tools);
        counts.writes += 1;
        return;
      }
      const r = await readFileTool({ path: 'd/payload-keys' }, tools);
      if (r.content.includes(SECRET)) counts.leaked += 1;
      else if (r.content.includes(DECOY)) counts.decoy += 1;
      else counts.other += 1;
    } catch (err) {
      if ((err as { kind?: string }).kind === 'invalid_input') counts.refused += 1;
      else counts.other += 1;
    }
  };
  while (Date.now() < deadline) await Promise.all(Array.from({ length: parallel }, (_, i) => one(i)));
  const flipped = await flipper;
  stop.abort();
  counts.flips = Number(/flips=(\d+)/.exec(flipped.stdout)?.[1] ?? 0);
  counts.plantedOutside = findOutside(dataDir, workspaceDir);
  return counts;
}

/** Files named {@link PLANTED} under `dataDir` but not inside the workspace. */
function findOutside(dataDir: string, workspaceDir: string): number {
  let found = 0;
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (p === workspaceDir) continue;
      if (e.name === PLANTED) found += 1;
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dataDir);
  return found;
}

/** Entry point for a child process: `argv` dataDir, seconds. */
export async function main(): Promise<void> {
  const [dataDir, seconds] = process.argv.slice(1);
  const counts = await runRace(dataDir!, Number(seconds));
  process.stdout.write(`RESULT ${JSON.stringify(counts)}\n`);
  process.exit(0);
}
