import type {Connection} from '../protocol/connect.js'

/**
 * How long a role loop waits between reads of the market: the caller's own value, else the one the user set for
 * the connection (--poll-interval, GENSYN_POLL_MS, the network file), else the client's poll interval (the chain's
 * block time, docs/multi-host.md) but no less than 500 ms, the loops' pace on a local devnet.
 */
export function loopPollMs(pollMs: number | undefined, connection: Pick<Connection, 'publicClient' | 'pollMs'>): number {
  return pollMs ?? connection.pollMs ?? Math.max(500, connection.publicClient.pollingInterval)
}
