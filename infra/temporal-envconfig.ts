/**
 * The Temporal connection settings of every Kesoku process (worker, API, adapters), read from Temporal's own
 * environment configuration (`@temporalio/envconfig`), the same settings the `temporal` CLI reads:
 *
 * - a profile from the TOML config file (`TEMPORAL_CONFIG_FILE`, else `$XDG_CONFIG_HOME/temporalio/temporal.toml`
 *   or `~/.config/temporalio/temporal.toml`), chosen by `TEMPORAL_PROFILE` (default `default`);
 * - overridden by `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS`,
 *   `TEMPORAL_TLS_CLIENT_CERT_PATH|_DATA`, `TEMPORAL_TLS_CLIENT_KEY_PATH|_DATA`,
 *   `TEMPORAL_TLS_SERVER_CA_CERT_PATH|_DATA`, `TEMPORAL_TLS_SERVER_NAME` and `TEMPORAL_GRPC_META_<NAME>`.
 *
 * An API key turns TLS on unless TLS is disabled explicitly (`TEMPORAL_TLS=false`), as the SDK does. No address
 * from either source means "no external Temporal": `npm start` then starts its embedded dev server.
 */
import { loadClientConfigProfile, toClientOptions } from '@temporalio/envconfig';
import type { TLSConfig } from '@temporalio/client';
import { ConfigError } from './config.ts';

/** What a client or worker connection needs besides the address. */
export interface TemporalConnectionSettings {
  /** TLS settings; `true` is TLS with the system's roots, `false` or undefined is plaintext. */
  tls?: TLSConfig | boolean;
  /** Sent as `Authorization: Bearer <key>` on every call (Temporal Cloud API keys). */
  apiKey?: string;
  /** Extra gRPC headers (`grpc_meta` in the profile, `TEMPORAL_GRPC_META_*`). */
  metadata?: Record<string, string>;
}

/** The resolved Temporal client configuration of a process. */
export interface TemporalClientSettings extends TemporalConnectionSettings {
  /** host:port of the frontend; undefined when neither the profile nor the environment names one. */
  address?: string;
  /** Namespace; `default` when unset. */
  namespace: string;
  /** The profile name that was read (`TEMPORAL_PROFILE`, else `default`). */
  profile: string;
}

/**
 * Resolves the Temporal client settings from the config file profile and the `TEMPORAL_*` variables.
 * @param env the environment to read (defaults to `process.env`)
 * @throws ConfigError when the config file cannot be parsed, a profile named by `TEMPORAL_PROFILE` does not
 *   exist, or a TLS certificate or key file cannot be read
 */
export function resolveTemporalSettings(env: NodeJS.ProcessEnv = process.env): TemporalClientSettings {
  const vars = Object.fromEntries(
    Object.entries(env).filter(
      (e): e is [string, string] =>
        typeof e[1] === 'string' && (e[1] !== '' || e[0].startsWith('TEMPORAL_GRPC_META_')),
    ),
  );
  const profile = vars.TEMPORAL_PROFILE ?? 'default';
  try {
    const loaded = loadClientConfigProfile({ overrideEnvVars: vars });
    const { connectionOptions, namespace } = toClientOptions(loaded);
    const metadata = loaded.grpcMeta && Object.keys(loaded.grpcMeta).length > 0 ? loaded.grpcMeta : undefined;
    return {
      address: connectionOptions.address?.trim() || undefined,
      namespace: namespace?.trim() || 'default',
      profile,
      ...(connectionOptions.tls !== undefined && connectionOptions.tls !== null
        ? { tls: asBuffers(connectionOptions.tls) }
        : {}),
      ...(connectionOptions.apiKey ? { apiKey: connectionOptions.apiKey } : {}),
      ...(metadata ? { metadata } : {}),
    };
  } catch (err) {
    throw new ConfigError(
      `Temporal configuration (profile "${profile}"): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/**
 * The TLS settings with certificates and keys as Buffers: envconfig reads them as Uint8Arrays, which the native
 * worker connection takes but grpc-js (the client `Connection`) rejects ("must be a Buffer").
 */
function asBuffers(tls: TLSConfig | boolean): TLSConfig | boolean {
  if (typeof tls === 'boolean') return tls;
  const buf = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b));
  return {
    ...(tls.serverNameOverride ? { serverNameOverride: tls.serverNameOverride } : {}),
    ...(tls.serverRootCACertificate ? { serverRootCACertificate: buf(tls.serverRootCACertificate) } : {}),
    ...(tls.clientCertPair
      ? {
          clientCertPair: {
            crt: Buffer.from(tls.clientCertPair.crt),
            key: Buffer.from(tls.clientCertPair.key),
          },
        }
      : {}),
  };
}

/** The connection options (TLS, API key, headers) of `settings`, for `Connection`/`NativeConnection.connect`. */
export function connectionSettingsOf(settings: TemporalConnectionSettings): TemporalConnectionSettings {
  return {
    ...(settings.tls !== undefined ? { tls: settings.tls } : {}),
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...(settings.metadata ? { metadata: settings.metadata } : {}),
  };
}

/** A one-line description for logs, without secrets: address, namespace, profile, TLS on/off, API key set. */
export function describeTemporalSettings(s: TemporalClientSettings): Record<string, unknown> {
  return {
    address: s.address,
    namespace: s.namespace,
    profile: s.profile,
    tls: Boolean(s.tls),
    apiKey: s.apiKey ? 'set' : 'unset',
  };
}
