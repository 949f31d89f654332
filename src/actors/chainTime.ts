import type {Connection} from '../protocol/connect.js'

/** Deadlines are judged by the chain's clock, never the local one. The head read also feeds the stall watch. */
export async function chainTime(connection: Pick<Connection, 'publicClient'> & Partial<Pick<Connection, 'stallWatch'>>): Promise<{timestamp: bigint; number: bigint}> {
  const block = await connection.publicClient.getBlock({blockTag: 'latest'})
  connection.stallWatch?.observe(block.number)
  return {timestamp: block.timestamp, number: block.number}
}
