/**
 * The rule a token-less server on loopback (the Kesoku API without tokens, the Temporal Web UI under `npm start`)
 * uses in place of a credential: a browser is the one client that can be made to send it requests by someone
 * else (a web page), so requests are refused when
 * - the `Host` header is not a loopback name with the server's own port (`127.0.0.1:<port>`, `localhost:<port>`,
 *   `[::1]:<port>`): a DNS-rebinding page names its own host there;
 * - they come from another site: an `Origin` other than the server's own, or `Sec-Fetch-Site` other than
 *   `same-origin` and `none` (a typed URL, a bookmark). Whether reads are checked too is the caller's choice.
 * Clients that are not browsers (curl, the terminal client, the SDKs) send neither header. Pure.
 */

/** The `Host` header values a loopback server on `port` accepts. */
export function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

/** `host:port` of an `http://` origin, lower case (other schemes, `null` and garbage give an empty string). */
export function originHost(origin: string): string {
  try {
    const u = new URL(origin);
    if (u.protocol !== 'http:') return '';
    return `${u.hostname}:${u.port || '80'}`.toLowerCase();
  } catch {
    return '';
  }
}

/** Methods that change state. */
export const STATE_CHANGING: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What {@link loopbackRefusal} looks at of a request. */
export interface LoopbackRequest {
  method: string;
  host: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
}

/**
 * Why a request to a token-less loopback server on `port` is refused, or null when it passes.
 * @param opts.checkReads check the origin of every request, not only of state-changing ones (a server whose
 *   reads may write: the Kesoku API claims a session id on `GET …/events`)
 */
export function loopbackRefusal(
  req: LoopbackRequest,
  port: number,
  opts: { checkReads?: boolean } = {},
): { kind: 'host' | 'cross-site'; allowed: string[] } | null {
  const allowed = loopbackHosts(port);
  if (!allowed.includes((req.host ?? '').toLowerCase())) return { kind: 'host', allowed };
  if (!opts.checkReads && !STATE_CHANGING.has(req.method.toUpperCase())) return null;
  const site = req.secFetchSite?.toLowerCase();
  if (req.origin !== undefined && !allowed.includes(originHost(req.origin)))
    return { kind: 'cross-site', allowed };
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return { kind: 'cross-site', allowed };
  return null;
}
