import { defineConfig } from 'vitest/config';

// Two projects, chosen by where a test lives and how it is named (docs/testing.md):
// - `unit`: `x.test.ts` beside the code it tests (and in a folder's own test/), run without servers;
// - `integration`: `x.stack.test.ts` anywhere, and every suite under test/ (the ones that cross the house), with
//   a real Temporal dev server and a real Postgres database from test/global-setup.ts.
// `npm test` runs both.
const OUTSIDE = ['node_modules/**', '.kesoku/**', 'bench/results/**'];

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
          include: ['**/*.test.ts'],
          exclude: [...OUTSIDE, '**/*.stack.test.ts', 'test/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['**/*.stack.test.ts', 'test/**/*.test.ts'],
          exclude: OUTSIDE,
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/support/quiet-runtime.ts'],
        },
      },
    ],
  },
});
