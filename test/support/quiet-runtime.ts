// Test processes log only the Temporal SDK's warnings and errors, so test output stays readable.
// KESOKU_TEST_LOG=debug shows the SDK's debug logs; KESOKU_TEST_CORE_LOG=DEBUG also the Rust core's.
import { DefaultLogger, Runtime, makeTelemetryFilterString, type LogLevel } from '@temporalio/worker';

try {
  const core = process.env.KESOKU_TEST_CORE_LOG as LogLevel | undefined;
  Runtime.install({
    logger: new DefaultLogger(process.env.KESOKU_TEST_LOG === 'debug' ? 'DEBUG' : 'WARN'),
    ...(core
      ? { telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core, other: 'WARN' }) } } }
      : {}),
  });
} catch {
  // Already installed in this worker process by an earlier test file.
}
