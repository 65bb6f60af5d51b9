/**
 * The previous release's workflow code (test/fixtures/releases/previous/source.tar.gz), unpacked and bundled for
 * replay. Its imports of the SDK resolve to this checkout's node_modules.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';

const ROOT = path.join(import.meta.dirname, '..', '..');
export const PREVIOUS_RELEASE_ARCHIVE = path.join(
  ROOT,
  'test',
  'fixtures',
  'releases',
  'previous',
  'source.tar.gz',
);

/** Bundles the previous release's workflows (a few seconds). */
export async function bundlePreviousRelease(): Promise<WorkflowBundle> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-previous-'));
  execFileSync('tar', ['xzf', PREVIOUS_RELEASE_ARCHIVE, '-C', dir]);
  try {
    const bundle = await bundleWorkflowCode({
      workflowsPath: path.join(dir, 'workflows', 'index.ts'),
      logger: undefined,
      webpackConfigHook: (config) => {
        config.resolve = { ...config.resolve, modules: [path.join(ROOT, 'node_modules'), 'node_modules'] };
        config.resolveLoader = {
          ...config.resolveLoader,
          modules: [path.join(ROOT, 'node_modules'), 'node_modules'],
        };
        return config;
      },
    });
    return { code: bundle.code };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
