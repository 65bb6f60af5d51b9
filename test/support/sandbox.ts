/**
 * Sandboxes for tests of the tools: the operator's explicit `off` (tools run unsandboxed, as with
 * KESOKU_SANDBOX=off) and the real bubblewrap sandbox of this host (probed as a worker does).
 */
import {
  defaultSandboxSettings,
  prepareSandbox,
  type Sandbox,
  type SandboxSettings,
} from '../../activities/tools/sandbox.ts';

/** KESOKU_SANDBOX=off, without cgroups: tools run unsandboxed, with the allowlisted environment and prlimit. */
export function offSandbox(dataDir: string, over: Partial<SandboxSettings> = {}): Sandbox {
  return {
    settings: defaultSandboxSettings(dataDir, { mode: 'off', cgroup: 'off', ...over }),
    kind: 'off',
    reason: 'KESOKU_SANDBOX=off',
    prlimitPath: '/usr/bin/prlimit',
  };
}

/** The real sandbox of this host in mode `required` (the test fails when bubblewrap cannot run). */
export function bwrapSandbox(dataDir: string, over: Partial<SandboxSettings> = {}): Promise<Sandbox> {
  return prepareSandbox(defaultSandboxSettings(dataDir, { mode: 'required', ...over }));
}
