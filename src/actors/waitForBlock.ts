import type {SignedConnection} from '../protocol/connect.js'
import {loopPollMs} from './loopPollMs.js'
import {sleep} from '../util/sleep.js'

/** Waits until block `number` exists, polling every loop interval (false when aborted first). */
export async function waitForBlock(connection: SignedConnection, number: bigint, options: {pollMs?: number | undefined; signal?: AbortSignal | undefined}): Promise<boolean> {
  for (;;) {
    if (options.signal?.aborted) return false
    const head = await connection.publicClient.getBlockNumber()
    connection.stallWatch?.observe(head)
    if (head >= number) return true
    await sleep(loopPollMs(options.pollMs, connection), options.signal)
  }
}
