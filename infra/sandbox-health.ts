/**
 * The state of the tools' sandbox of the worker running in this process, as `GET /healthz` shows it (the API's
 * and the metrics port's). Set once by the worker when it probed its sandbox (activities/tools/sandbox.ts
 * `reportSandbox`); absent in a process that runs no worker.
 */

/** What /healthz shows as `sandbox`. */
export interface SandboxHealth {
  /** KESOKU_SANDBOX: `auto`, `required` or `off`. */
  mode: 'auto' | 'required' | 'off';
  /** `bwrap`: tools run sandboxed; `off`: turned off by the operator; `unavailable`: every tool call is refused. */
  state: 'bwrap' | 'off' | 'unavailable';
  /** Why tools are not sandboxed (states `off` and `unavailable`). */
  reason?: string;
  /** Whether the seccomp filter is applied. */
  seccomp: boolean;
  /** `cgroup v1`/`cgroup v2`: per-command memory and process limits; `rlimit`: per-process limits only. */
  limits: string;
  /** KESOKU_SANDBOX_NETWORK. */
  network: 'off' | 'on';
}

let current: SandboxHealth | undefined;

/** Records this process's worker's sandbox state. */
export function setSandboxHealth(health: SandboxHealth): void {
  current = health;
}

/** This process's worker's sandbox state, or undefined when no worker runs here. */
export function currentSandboxHealth(): SandboxHealth | undefined {
  return current;
}
