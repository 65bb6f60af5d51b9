/**
 * The life of a Kesoku process, shared by every entry point in bin/: a {@link Service} is a running part with
 * `stop()`; {@link runProcess} wires SIGINT/SIGTERM to a graceful stop of them all, and a failed start prints
 * one clear line and exits 1.
 */
import { killStartedChildren } from '../infra/child-process.ts';
import type { Logger } from '../infra/logger.ts';
import type { Infrastructure } from './infrastructure.ts';

/** A running part of a process (the worker, the API, the channels, metrics): stopping it never throws. */
export interface Service {
  name: string;
  stop(): Promise<void>;
}

/** Stops services in reverse order, then the infrastructure; never throws. */
export async function stopAll(
  services: Service[],
  infra: Infrastructure | null,
  logger: Logger,
): Promise<void> {
  for (const s of [...services].reverse()) {
    await s.stop().catch((err) => logger.warn({ service: s.name, err: String(err) }, 'stop failed'));
  }
  await infra?.stop();
}

/**
 * A second signal within this many ms of the first is the same request delivered twice: under `npm run`, a
 * terminal's Ctrl-C reaches the process group and npm forwards it to its child as well.
 */
const DUPLICATE_SIGNAL_MS = 1000;

/**
 * Runs `main` and wires SIGINT/SIGTERM to a graceful stop (a second signal, a second or more after the first,
 * forces exit). Start-up errors print one clear line and exit 1.
 */
export function runProcess(name: string, logger: Logger, main: () => Promise<() => Promise<void>>): void {
  let stopping = false;
  let firstSignalAt = 0;
  let startup: Promise<() => Promise<void>> = new Promise(() => undefined);
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping && Date.now() - firstSignalAt < DUPLICATE_SIGNAL_MS) return;
    if (stopping) {
      process.stderr.write(`kesoku: ${signal} again, exiting now\n`);
      killStartedChildren();
      process.exit(130);
    }
    stopping = true;
    firstSignalAt = Date.now();
    process.stderr.write(`kesoku: ${signal}: stopping ${name}…\n`);
    // A signal during start-up waits for start-up to finish, so every child started so far is stopped too.
    void startup.then(
      async (stop) => {
        await stop();
        process.stderr.write(`kesoku: ${name} stopped\n`);
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  startup = main();
  startup.catch((err: unknown) => {
    // An expected refusal (configuration, a port in use, another instance) is the one line below; anything
    // else is a fault, logged with its stack as well.
    if (!isStartupRefusal(err)) logger.error({ err }, `${name} could not start`);
    exitStartupFailure(name, err);
  });
}

/**
 * True for errors that refuse a start for a reason the message fully explains, those with a `kind`
 * (ConfigError's `config`, `already-running`, `temporal_unavailable`, `postgres_unavailable`): no stack.
 */
export function isStartupRefusal(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return typeof (err as { kind?: unknown }).kind === 'string';
}

/** The line a failed start prints: `kesoku: <name> could not start: <message>`, newline-terminated. */
export function startupFailureLine(name: string, err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err)).trimEnd();
  return `kesoku: ${name} could not start: ${message}\n`;
}

function exitStartupFailure(name: string, err: unknown): never {
  process.stderr.write(startupFailureLine(name, err));
  process.exit(1);
}

/**
 * Runs an entry point's preparation before {@link runProcess} (reading the configuration, creating the logger,
 * checks that need no server) and returns its result. A throw prints {@link startupFailureLine} and exits 1,
 * never an uncaught stack trace; a fault that is not a {@link isStartupRefusal} keeps its stack on stderr.
 */
export function prepareOrExit<T>(name: string, prepare: () => T): T {
  try {
    return prepare();
  } catch (err) {
    if (!isStartupRefusal(err)) process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    exitStartupFailure(name, err);
  }
}
