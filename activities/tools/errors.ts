/**
 * The typed errors the host tools throw (docs/architecture.md "Tools"). Each carries a `kind` the activity and the presenter
 * map on, so nobody has to parse messages:
 *
 * - `invalid_input`: the model asked for something the tool will not do (bad arguments, unknown tool, a path
 *   outside the workspace, an unsupported option). The message is written for the model, so it can correct itself.
 * - `cancelled`: the run was aborted through its AbortSignal; the process group was killed.
 * - `execution_failed`: the host could not run the tool at all (e.g. `/bin/sh` could not be spawned). Not the
 *   model's fault; the message names the cause but no secrets.
 */
export type ToolErrorKind = 'invalid_input' | 'cancelled' | 'execution_failed';

/** Base class of every tool error; `kind` tells which subclass it is without `instanceof`. */
export class ToolError extends Error {
  readonly kind: ToolErrorKind;

  constructor(kind: ToolErrorKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.kind = kind;
    this.name = new.target.name;
  }
}

/** The arguments (or the tool name) were rejected; `message` is meant to be shown to the model. */
export class ToolInputError extends ToolError {
  constructor(message: string, options?: ErrorOptions) {
    super('invalid_input', message, options);
  }
}

/** The run was cancelled through its AbortSignal before it finished. */
export class ToolCancelledError extends ToolError {
  constructor(message = 'the tool run was cancelled', options?: ErrorOptions) {
    super('cancelled', message, options);
  }
}

/** The host failed to run the tool (spawn failure and the like); the original error is the `cause`. */
export class ToolExecutionError extends ToolError {
  constructor(message: string, options?: ErrorOptions) {
    super('execution_failed', message, options);
  }
}

/** True for any of the errors above (also across realms/bundles, by duck-typing on `kind`). */
export function isToolError(err: unknown): err is ToolError {
  return (
    err instanceof ToolError ||
    (err instanceof Error &&
      'kind' in err &&
      (err.kind === 'invalid_input' || err.kind === 'cancelled' || err.kind === 'execution_failed'))
  );
}
