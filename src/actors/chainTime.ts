import type {Connection} from '../protocol/connect.js'

/** Deadlines are judged by the chain's clock, never the local one. */
export async function chainTime(connection: Pick<Connection, 'publicClient'>): Promise<{timestamp: bigint; number: bigint}> {
  const block = await connection.publicClient.getBlock({blockTag: 'latest'})
  return {timestamp: block.timestamp, number: block.number}
}
