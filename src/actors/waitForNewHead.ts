import type {Connection} from '../protocol/connect.js'
import {sleep} from '../util/sleep.js'
import {loopPollMs} from './loopPollMs.js'

/**
 * How many poll intervals a loop waits on a head that does not move before it reads the market anyway: on a chain
 * that mines only when a transaction arrives (automine), a loop must still notice, within a few intervals, what
 * changes off the chain (a proof's files reaching the store, a solver told to leave).
 */
export const QUIET_POLLS = 4

export type WaitForNewHeadOptions = {pollMs?: number | undefined; signal?: AbortSignal | undefined}

/**
 * Waits one poll interval, then on while the chain's head is still `seen`, the block the loop's last pass judged by:
 * nothing a pass reads can change without a new block, so another pass would only repeat the last one. A wait costs
 * one block-number read per interval instead of the whole market (taskCount, every task, the block, the book): with
 * 1 s blocks and 0.5 s polls, a loop now reads the market once a block instead of twice (docs/benchmarks.md,
 * "Actor CPU"). A block that arrived between a pass's reads and its `seen` is noticed one block later.
 */
export async function waitForNewHead(
  connection: Pick<Connection, 'publicClient' | 'pollMs'> & Partial<Pick<Connection, 'stallWatch'>>,
  seen: bigint,
  options: WaitForNewHeadOptions = {},
): Promise<void> {
  const interval = loopPollMs(options.pollMs, connection)
  for (let polls = 1; ; polls++) {
    await sleep(interval, options.signal)
    if (options.signal?.aborted || polls >= QUIET_POLLS) return
    // cacheTime 0: viem would otherwise answer from its cache of the last read for up to a polling interval.
    const head = await connection.publicClient.getBlockNumber({cacheTime: 0})
    connection.stallWatch?.observe(head)
    if (head !== seen) return
  }
}
