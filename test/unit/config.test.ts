import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../infra/config.ts';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const cfg = loadConfig({});
    expect(cfg.KESOKU_API_PORT).toBe(3000);
    expect(cfg.KESOKU_CONTINUE_AS_NEW_TURNS).toBe(200);
    expect(cfg.KESOKU_WORKER_CACHED_SESSIONS).toBeUndefined();
  });

  it('reads KESOKU_WORKER_CACHED_SESSIONS as an integer of at least 2', () => {
    expect(loadConfig({ KESOKU_WORKER_CACHED_SESSIONS: '500' }).KESOKU_WORKER_CACHED_SESSIONS).toBe(500);
    expect(loadConfig({ KESOKU_WORKER_CACHED_SESSIONS: ' ' }).KESOKU_WORKER_CACHED_SESSIONS).toBeUndefined();
    for (const bad of ['1', '2.5', 'many']) {
      expect(() => loadConfig({ KESOKU_WORKER_CACHED_SESSIONS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ KESOKU_WORKER_CACHED_SESSIONS: bad })).toThrow(
        /KESOKU_WORKER_CACHED_SESSIONS: must be an integer between 2 and 1000000/,
      );
    }
  });
});
