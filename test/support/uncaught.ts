/**
 * Catching what a test would otherwise only see as vitest's "unhandled error" after the file: the process's
 * 'uncaughtException' listeners are swapped for a collector until `restore()`.
 */
export function collectUncaught(): { errors: unknown[]; restore: () => void } {
  const errors: unknown[] = [];
  const saved = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  const onError = (err: unknown) => errors.push(err);
  process.on('uncaughtException', onError);
  return {
    errors,
    restore: () => {
      process.off('uncaughtException', onError);
      for (const l of saved) process.on('uncaughtException', l);
    },
  };
}
