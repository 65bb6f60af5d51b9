import { defineConfig } from 'vitest/config';

// Two projects: `unit` is pure code (no servers); `integration` gets a real Temporal dev server and a real
// Postgres database from test/global-setup.ts. `npm test` runs both.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'domain/**/*.test.ts',
            'test/unit/**/*.test.ts',
            'test/cli/{render,live,options,events}.test.ts',
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['**/*.test.ts'],
          exclude: [
            'node_modules/**',
            '.kesoku/**',
            'domain/**',
            'test/unit/**',
            'test/cli/{render,live,options,events}.test.ts',
          ],
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/support/quiet-runtime.ts'],
        },
      },
    ],
  },
});
