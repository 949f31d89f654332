import type {PublicClient} from 'viem'

import type {IntervalMining} from '../chain/intervalMining.js'
import {BaseError} from '../errors/base.js'
import {processState} from '../util/processLiveness.js'

export type PauseDevnetOptions = {
  publicClient: Pick<PublicClient, 'request' | 'getBlock'>
  /** The pids of the actor processes to freeze; ones that have exited are skipped. */
  pids: readonly (number | undefined)[]
  /** The devnet's block production: stopped on pause, started again on resume. */
  mining: Pick<IntervalMining, 'start' | 'stop'>
}

/** A frozen devnet: actors stopped, no blocks mined, chain time held at `blockTimestamp`. */
export type PausedDevnet = {
  /** The head when mining stopped: resume continues the chain's clock from here. */
  readonly blockNumber: bigint
  readonly blockTimestamp: bigint
  /** The actor pids that got SIGSTOP (and get SIGCONT on resume). */
  readonly stopped: readonly number[]
  /** Restores the chain's clock and interval mining, then SIGCONTs the actors. Safe to call twice. */
  resume(): Promise<void>
}

export class DevnetPauseError extends BaseError {
  override name = 'DevnetPauseError'
}

/**
 * Freezes a running devnet so a researcher can look at it: mining stops first (so no deadline moves while an
 * actor is half-way through a step), then every actor process gets SIGSTOP. anvil's interval mining stamps
 * blocks with the wall clock, so without `evm_setTime` on resume the first block after a pause would jump by
 * the pause's length and time out solvers that were frozen mid-training.
 */
export async function pauseDevnet(options: PauseDevnetOptions): Promise<PausedDevnet> {
  const {publicClient} = options
  await options.mining.stop()
  const head = await publicClient.getBlock({blockTag: 'latest'})
  const stopped: number[] = []
  for (const pid of options.pids) {
    if (pid === undefined) continue
    try {
      process.kill(pid, 'SIGSTOP')
      stopped.push(pid)
    } catch {
      // It exited between the roster read and the signal: nothing to freeze.
    }
  }
  await waitUntilStopped(stopped)
  let resumed = false
  return {
    blockNumber: head.number,
    blockTimestamp: head.timestamp,
    stopped,
    async resume() {
      if (resumed) return
      resumed = true
      try {
        // The next block is stamped one second after the last one, as if no time had passed.
        await rpc(publicClient, 'evm_setTime', [Number(head.timestamp) + 1])
        await options.mining.start()
      } finally {
        // Even when anvil is gone, frozen actors must get to run their SIGTERM handlers.
        for (const pid of stopped) {
          try {
            process.kill(pid, 'SIGCONT')
          } catch {
            // already gone
          }
        }
      }
    },
  }
}

async function rpc(publicClient: Pick<PublicClient, 'request'>, method: string, params: unknown[]): Promise<void> {
  try {
    await publicClient.request({method, params} as never)
  } catch (error) {
    throw new DevnetPauseError(`devnet pause: anvil refused ${method}`, {cause: error})
  }
}

/**
 * SIGSTOP takes effect asynchronously: wait (up to a second, where /proc exists) until every process is in state
 * T, so that "paused" means no actor runs another instruction.
 */
async function waitUntilStopped(pids: readonly number[]): Promise<void> {
  const until = Date.now() + 1000
  for (;;) {
    // Gone, or no /proc on this system (undefined): nothing to wait for.
    const running = pids.filter((pid) => {
      const state = processState(pid)
      return state !== undefined && state !== 'T' && state !== 'Z'
    })
    if (running.length === 0 || Date.now() > until) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
