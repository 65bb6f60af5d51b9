/**
 * `npm run temporal:install [-- --server]`: with `--server`, also builds the Temporal server and SQL tool for the
 * cluster test (infra/temporal-cluster.ts). Without it: resolves (and on first use builds) the Temporal CLI the same way `npm start` and
 * the tests do, and prints where it is. `.ci/run` calls it so the build is not inside a test's time budget.
 */
import { binaryVersion, resolveTemporalBinary } from '../infra/temporal-server.ts';

const started = Date.now();
const found = await resolveTemporalBinary({ cliPath: process.env.KESOKU_TEMPORAL_CLI });
if (!found) {
  process.stderr.write(
    'kesoku: no Temporal CLI found and Go is not installed: install Go or set KESOKU_TEMPORAL_CLI\n',
  );
  process.exit(1);
}
process.stdout.write(
  `temporal CLI: ${found.path} (${found.source}, ${binaryVersion(found.path)}), resolved in ${((Date.now() - started) / 1000).toFixed(1)}s\n`,
);

if (process.argv.includes('--server')) {
  const { installServerBinaries, TEMPORAL_SERVER_VERSION } = await import('../infra/temporal-cluster.ts');
  const t = Date.now();
  const bins = installServerBinaries();
  process.stdout.write(
    `temporal server ${TEMPORAL_SERVER_VERSION}: ${bins.server}, ${bins.sqlTool}, resolved in ${((Date.now() - t) / 1000).toFixed(1)}s\n`,
  );
}
