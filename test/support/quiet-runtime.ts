// Test processes log only the Temporal SDK's warnings and errors, so test output stays readable.
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger(process.env.KESOKU_TEST_LOG === 'debug' ? 'DEBUG' : 'WARN') });
} catch {
  // Already installed in this worker process by an earlier test file.
}
