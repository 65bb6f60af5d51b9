/**
 * The tools' sandbox settings from the configuration (KESOKU_SANDBOX*, KESOKU_TOOL_ENV, KESOKU_WORKSPACE_QUOTA_MB,
 * KESOKU_RETENTION_DAYS), with every configured secret file collected into the paths the sandbox hides.
 */
import type { Config } from '../../infra/config.ts';
import { defaultSandboxSettings, secretPathsFrom, type SandboxSettings } from './sandbox.ts';

/**
 * The settings for `cfg`; `env` (default `process.env`) names the key and token files to hide
 * ({@link secretPathsFrom}).
 */
export function sandboxSettingsFrom(cfg: Config, env: NodeJS.ProcessEnv = process.env): SandboxSettings {
  const defaults = defaultSandboxSettings(cfg.KESOKU_DATA_DIR);
  return defaultSandboxSettings(cfg.KESOKU_DATA_DIR, {
    mode: cfg.KESOKU_SANDBOX,
    network: cfg.KESOKU_SANDBOX_NETWORK,
    toolEnv: cfg.KESOKU_TOOL_ENV,
    cpuS: cfg.KESOKU_SANDBOX_CPU_S,
    memoryMb: cfg.KESOKU_SANDBOX_MEMORY_MB,
    processes: cfg.KESOKU_SANDBOX_PROCESSES,
    fileMb: cfg.KESOKU_SANDBOX_FILE_MB,
    uids: cfg.KESOKU_SANDBOX_UID,
    hide: [...defaults.hide, ...secretPathsFrom(env)],
    extraPaths: cfg.KESOKU_SANDBOX_PATHS,
    cgroup: cfg.KESOKU_SANDBOX_CGROUP,
    workspaceQuotaMb: cfg.KESOKU_WORKSPACE_QUOTA_MB,
    retentionDays: cfg.KESOKU_RETENTION_DAYS,
  });
}
