/**
 * Kesoku's custom search attributes (`KesokuChatbotId`, `KesokuChannelId`, `KesokuSessionStatus`, all Keyword),
 * which every session workflow sets when it starts. A namespace without them rejects the start, so a worker
 * makes sure they exist before it polls: it lists the namespace's attributes through the operator service and
 * adds the missing ones. Adding is idempotent and safe when several workers start at once (an "already exists"
 * answer is success; other conflicts are retried after listing again).
 *
 * Where the worker may not add them (Temporal Cloud answers Unimplemented or PermissionDenied to the operator
 * service's add call, and a self-hosted server with authorization may deny it), start-up stops with a
 * {@link SearchAttributesMissingError} whose message prints the exact commands to run.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { Logger } from './logger.ts';
import { SEARCH_ATTRIBUTE_NAMES } from '../workflows/definitions.ts';

const { temporal } = proto;
const KEYWORD = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;

/** The attributes a namespace must have for Kesoku, by name; all are Keyword. */
export const KESOKU_SEARCH_ATTRIBUTES: readonly string[] = SEARCH_ATTRIBUTE_NAMES;

/** The namespace lacks some of Kesoku's search attributes and this process may not add them. */
export class SearchAttributesMissingError extends Error {
  readonly kind = 'search_attributes_missing';
  /** The namespace that lacks them. */
  readonly namespace: string;
  /** The attribute names still missing. */
  readonly missing: string[];
  constructor(namespace: string, missing: string[], cause: unknown) {
    super(
      `Temporal namespace "${namespace}" has no search attribute${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, ` +
        `and this worker may not add ${missing.length > 1 ? 'them' : 'it'} (${grpcCodeName(cause)}). Add ${missing.length > 1 ? 'them' : 'it'} once, then start again:\n` +
        `  ${searchAttributeCommand(namespace, missing)}\n` +
        `  (Temporal Cloud: ${cloudSearchAttributeCommand(namespace, missing)})`,
      { cause },
    );
    this.namespace = namespace;
    this.missing = missing;
  }
}

/** `temporal operator search-attribute create …` for `names` in `namespace`. */
export function searchAttributeCommand(namespace: string, names: readonly string[]): string {
  return `temporal operator search-attribute create --namespace ${namespace} ${names.map((n) => `--name ${n} --type Keyword`).join(' ')}`;
}

/** The Temporal Cloud CLI (`tcld`) equivalent of {@link searchAttributeCommand}. */
export function cloudSearchAttributeCommand(namespace: string, names: readonly string[]): string {
  return `tcld namespace search-attributes add --namespace ${namespace} ${names.map((n) => `--search-attribute "${n}=Keyword"`).join(' ')}`;
}

function grpcCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

function grpcCodeName(err: unknown): string {
  const code = grpcCode(err);
  const name = code === undefined ? undefined : (GrpcStatus as unknown as Record<number, string>)[code];
  return name
    ? `the server answered ${name}`
    : `the call failed: ${err instanceof Error ? err.message : String(err)}`;
}

/** Codes meaning "you may not add attributes here", as opposed to a transient failure. */
const NOT_ALLOWED = new Set<number>([
  GrpcStatus.PERMISSION_DENIED,
  GrpcStatus.UNIMPLEMENTED,
  GrpcStatus.UNAUTHENTICATED,
]);

export interface EnsureSearchAttributesOptions {
  connection: Connection;
  namespace: string;
  logger?: Logger;
  /** Attempts at list-then-add before giving up on transient errors (default 10). */
  attempts?: number;
  /** Time limit of each call, in ms (default 10 000). */
  callTimeoutMs?: number;
}

/**
 * Makes sure Kesoku's search attributes exist in `namespace`.
 * @returns the names this call added (empty when all existed)
 * @throws SearchAttributesMissingError when some are missing and the server refuses to add them (permission
 *   denied, unimplemented, unauthenticated); the last error after `attempts` transient failures; an Error when
 *   an attribute exists with a type other than Keyword
 */
export async function ensureSearchAttributes(opts: EnsureSearchAttributesOptions): Promise<string[]> {
  const { connection, namespace, logger } = opts;
  const attempts = opts.attempts ?? 10;
  const timeout = opts.callTimeoutMs ?? 10_000;
  const added: string[] = [];
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let missing: string[];
    try {
      const listed = await connection.withDeadline(Date.now() + timeout, () =>
        connection.operatorService.listSearchAttributes({ namespace }),
      );
      const custom = listed.customAttributes ?? {};
      const wrongType = KESOKU_SEARCH_ATTRIBUTES.filter(
        (n) => custom[n] !== undefined && custom[n] !== KEYWORD,
      );
      if (wrongType.length > 0) {
        throw Object.assign(
          new Error(
            `Temporal namespace "${namespace}" has ${wrongType.join(', ')} with a type other than Keyword; Kesoku needs Keyword`,
          ),
          { kind: 'search_attributes_wrong_type' },
        );
      }
      missing = KESOKU_SEARCH_ATTRIBUTES.filter((n) => custom[n] === undefined);
    } catch (err) {
      if (grpcCode(err) === undefined) throw err;
      if (NOT_ALLOWED.has(grpcCode(err)!))
        throw new SearchAttributesMissingError(namespace, [...KESOKU_SEARCH_ATTRIBUTES], err);
      lastError = err;
      await backoff(attempt);
      continue;
    }
    if (missing.length === 0) {
      if (added.length > 0) logger?.info({ namespace, added }, 'added Kesoku search attributes');
      return added;
    }
    try {
      await connection.withDeadline(Date.now() + timeout, () =>
        connection.operatorService.addSearchAttributes({
          namespace,
          searchAttributes: Object.fromEntries(missing.map((n) => [n, KEYWORD])),
        }),
      );
      added.push(...missing);
    } catch (err) {
      const code = grpcCode(err);
      if (code !== undefined && NOT_ALLOWED.has(code))
        throw new SearchAttributesMissingError(namespace, missing, err);
      // ALREADY_EXISTS: another worker added them first; anything else (a concurrent namespace update, a
      // server still starting): list again and retry what is still missing.
      if (code !== GrpcStatus.ALREADY_EXISTS) lastError = err;
    }
    // The list is read from the namespace registry, which the server refreshes shortly after an add.
    await backoff(attempt);
  }
  throw (
    lastError ??
    new Error(
      `Kesoku's search attributes did not appear in namespace "${namespace}" after ${attempts} attempts`,
    )
  );
}

function backoff(attempt: number): Promise<void> {
  const ms = Math.min(2000, 100 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
  return new Promise((r) => setTimeout(r, ms));
}
