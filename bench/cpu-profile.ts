/**
 * Summarizes V8 CPU profiles (`.cpuprofile`, as `node --cpu-prof` writes them): self time by where the code lives
 * (a package under node_modules, a Kesoku folder, Node's internals, V8's garbage collector, idle) and the top
 * functions, optionally only for a window of the profile.
 *
 * Usage: `node bench/cpu-profile.ts [--from MS] [--to MS] [--top N] <file.cpuprofile>...`. `--from`/`--to`: ms
 * after the profile started (the bench's report gives the worker's spawn time and each section's start and end,
 * so a section's window is its start and end minus `worker_started_at`). Several files (one per thread) are
 * summed.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The checkout's root as a file URL prefix and a path prefix (profiles use either). */
const ROOT = path.resolve(import.meta.dirname, '..');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives, e.g. `pg`, `@temporalio/worker`, `kesoku activities/`, `(garbage collector)`. */
export function category(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1] as string;
  if (url.startsWith('node:')) return 'node internals';
  const local = url.replace(/^file:\/\//, '');
  if (local.startsWith(`${ROOT}/`)) {
    const top = local.slice(ROOT.length + 1).split('/')[0] as string;
    // The worker writes its webpack bundle of workflows/ to the checkout's root.
    return top.startsWith('workflow-bundle') ? 'kesoku workflows/ (bundle)' : `kesoku ${top}/`;
  }
  // The workflow bundle (webpack output evaluated in the workflow thread's vm context).
  return url.slice(0, 60);
}

/** Frames that do work on behalf of their caller: their time is charged to the nearest other frame up the stack. */
const HELPERS = new Set(['node internals', '(native)']);

/** Self time (ms) by category and by function of `profile`, between `fromMs` and `toMs` after its start. */
export function selfTimes(
  profile: CpuProfile,
  fromMs = 0,
  toMs = Infinity,
): {
  total: number;
  byCategory: Map<string, number>;
  byCaller: Map<string, number>;
  byFunction: Map<string, number>;
} {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const caller = (id: number): string => {
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)?.callFrame;
      if (!f) break;
      const cat = category(f.url, f.functionName);
      if (!HELPERS.has(cat) && f.functionName !== '(root)') return cat;
    }
    return '(no caller)';
  };
  const byCaller = new Map<string, number>();
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    const at = (t - profile.startTime) / 1000;
    if (at < fromMs || at > toMs) continue;
    const node = byId.get(profile.samples[i] as number);
    if (!node) continue;
    const ms = delta / 1000;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    total += ms;
    const cat = category(url, functionName);
    byCategory.set(cat, (byCategory.get(cat) ?? 0) + ms);
    const by = HELPERS.has(cat) ? caller(node.id) : cat;
    byCaller.set(by, (byCaller.get(by) ?? 0) + ms);
    const fn = `${functionName || '(anonymous)'} ${cat}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  }
  return { total, byCategory, byCaller, byFunction };
}

function main() {
  const args = process.argv.slice(2);
  const num = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args.splice(i, 2)[1]) : undefined;
  };
  const from = num('--from') ?? 0;
  const to = num('--to') ?? Infinity;
  const top = num('--top') ?? 25;
  if (args.length === 0) {
    process.stderr.write(
      'usage: node bench/cpu-profile.ts [--from MS] [--to MS] [--top N] <file.cpuprofile>...\n',
    );
    process.exit(2);
  }
  const byCategory = new Map<string, number>();
  const byCaller = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const file of args) {
    const r = selfTimes(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, from, to);
    process.stdout.write(`${file}: ${r.total.toFixed(0)} ms busy in the window\n`);
    total += r.total;
    for (const [k, ms] of r.byCategory) byCategory.set(k, (byCategory.get(k) ?? 0) + ms);
    for (const [k, ms] of r.byCaller) byCaller.set(k, (byCaller.get(k) ?? 0) + ms);
    for (const [k, ms] of r.byFunction) byFunction.set(k, (byFunction.get(k) ?? 0) + ms);
  }
  const print = (title: string, m: Map<string, number>) => {
    process.stdout.write(`\n${title}\n`);
    for (const [k, ms] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
      process.stdout.write(
        `${ms.toFixed(0).padStart(8)} ms ${((ms / total) * 100).toFixed(1).padStart(5)} %  ${k}\n`,
      );
  };
  process.stdout.write(`\nbusy (not idle) in the window: ${total.toFixed(0)} ms\n`);
  print('self time by where the code lives', byCategory);
  print("self time with Node's internals and native code charged to their caller", byCaller);
  print('self time by function', byFunction);
}

if (import.meta.main) main();
