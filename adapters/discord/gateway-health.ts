/** The Discord gateway connection's state for `/healthz` (api/health.ts). */
import { Status, type Client } from 'discord.js';

/** The gateway state: `ok`, the discord.js status name (`Ready`, `Resuming`, …) and the heartbeat ping in ms. */
export interface GatewayHealth {
  ok: boolean;
  gateway: string;
  pingMs: number;
  [detail: string]: unknown;
}

/**
 * Whether `client`'s gateway connection can take messages now: ready and every shard connected. The manager's
 * own status stays `Ready` after its first READY, through a dropped connection and the reconnect that follows,
 * so the shards' statuses are what tell a live connection from a lost one. `gateway` names the worst shard's
 * status when one is not ready.
 */
export function gatewayHealth(client: Client): GatewayHealth {
  const shards = [...client.ws.shards.values()];
  const notReady = shards.find((s) => s.status !== Status.Ready);
  const status = notReady?.status ?? client.ws.status;
  return {
    ok: client.isReady() && notReady === undefined && shards.length > 0,
    gateway: Status[status] ?? String(status),
    pingMs: client.ws.ping,
  };
}
