#!/usr/bin/env node
// `npx kesoku …` (package.json "bin"): runs bin/kesoku.ts on the project's own Node.js 24 (the `node` package in
// node_modules) when the Node running this file cannot run TypeScript, forwarding arguments, stdio and the
// exit code. Plain JavaScript, so any Node that can run npm can start it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const script = path.join(root, 'bin', 'kesoku.ts');
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const canRunTs = major > 22 || (major === 22 && minor >= 18);
const projectNode = path.join(root, 'node_modules', '.bin', 'node');
const node = canRunTs || !fs.existsSync(projectNode) ? process.execPath : projectNode;

const child = spawn(node, [script, ...process.argv.slice(2)], { stdio: 'inherit' });
// A terminal's Ctrl-C reaches the child too (same process group); a signal sent to this process alone is passed on.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('error', (err) => {
  process.stderr.write(`kesoku: could not run ${node}: ${err.message}\n`);
  process.exit(3);
});
child.on('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
