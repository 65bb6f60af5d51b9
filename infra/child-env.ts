/**
 * The environment of the servers Kesoku starts (the Temporal dev server, the embedded Postgres) and of the
 * `go install` that builds the Temporal CLI: an allowlist, never `process.env`, so that a child server (and
 * whoever can read its environment: its uid, `/proc/<pid>/environ`, a Postgres superuser's `pg_read_file`) never
 * holds Kesoku's secrets (`DISCORD_TOKEN`, `KESOKU_LLM_API_KEY`, `KESOKU_PAYLOAD_KEYS`, …).
 */

/** What every child gets, when set: where programs are, who and where it runs, locale and time zone. */
export const CHILD_ENV_BASE: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'TMPDIR',
  'TZ',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
];

/**
 * What `go install` needs besides {@link CHILD_ENV_BASE}: Go's own settings (module proxy, caches, toolchain),
 * the network proxy it downloads through and the CA certificates it trusts, the compiler for cgo.
 */
export const GO_BUILD_ENV: readonly string[] = [
  'GOROOT',
  'GOPATH',
  'GOCACHE',
  'GOMODCACHE',
  'GOENV',
  'GOFLAGS',
  'GOPROXY',
  'GOPRIVATE',
  'GONOPROXY',
  'GONOSUMDB',
  'GOSUMDB',
  'GOINSECURE',
  'GOTOOLCHAIN',
  'GOTELEMETRY',
  'CGO_ENABLED',
  'CC',
  'XDG_CACHE_HOME',
  'XDG_CONFIG_HOME',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
];

/**
 * The environment for a child: the variables of {@link CHILD_ENV_BASE} and `names` that `from` has, then `set`
 * (an undefined value removes the variable).
 * @param from the parent's environment (default `process.env`)
 */
export function childEnv(
  names: readonly string[] = [],
  set: Readonly<Record<string, string | undefined>> = {},
  from: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of [...CHILD_ENV_BASE, ...names]) {
    const v = from[name];
    if (v !== undefined) env[name] = v;
  }
  for (const [k, v] of Object.entries(set)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}
