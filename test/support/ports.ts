/**
 * Ports for servers a test starts later (a child `kesoku`, a doctor run): chosen below Linux's ephemeral range
 * (net.ipv4.ip_local_port_range, 32768–60999 by default), where the kernel never hands a port to an outgoing
 * connection. A port from `listen(0)` lies inside that range, so in the seconds before the test's server binds
 * it, any connection the other test files open (to Postgres, Temporal, a fake model) can take it as its own
 * local port, and the server finds it in use.
 */
import net from 'node:net';

const LOW = 15_000;
const HIGH = 32_000;
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A TCP port in 15000–31999 that 127.0.0.1 can listen on now and that this process has not handed out before.
 * @throws Error when 200 random tries find none
 */
export async function unusedPort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${LOW}–${HIGH - 1} after 200 tries`);
}
