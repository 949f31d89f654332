import type {PublicClient} from 'viem'

/**
 * A local chain's block production on an interval, started and stopped as one object (a devnet stops it to pause,
 * and before anvil stops).
 */
export type IntervalMining = {
  /** Seconds between blocks. */
  readonly seconds: number
  /** Mines a block every `seconds` from now on (again after a stop). */
  start(): Promise<void>
  /** No more blocks until the next start. */
  stop(): Promise<void>
}

/**
 * Interval mining on anvil. Whole seconds use anvil's own timer (`evm_setIntervalMining`); that call takes whole
 * seconds only, so a sub-second block time (a devnet of 0.25 s blocks settles its windows four times sooner) mines
 * with `evm_mine` from here on a timer that does not hold the process open. anvil stamps such blocks with the wall
 * clock, several blocks to a second, so deadlines in seconds keep their length.
 */
export function createIntervalMining(client: Pick<PublicClient, 'request'>, seconds: number): IntervalMining {
  const rpc = (method: string, params: unknown[]) => client.request({method, params} as never) as Promise<unknown>
  if (Number.isInteger(seconds)) {
    return {
      seconds,
      start: async () => void (await rpc('evm_setIntervalMining', [seconds])),
      stop: async () => void (await rpc('evm_setIntervalMining', [0])),
    }
  }
  let timer: NodeJS.Timeout | undefined
  /** Bumped by every start and stop, so a block mined across a stop and a start does not start a second timer. */
  let generation = 0
  let mining: Promise<unknown> = Promise.resolve()
  const schedule = (own: number) => {
    timer = setTimeout(() => {
      // A block still being mined is not stacked on: the next comes one interval after it.
      mining = rpc('evm_mine', [])
        .catch(() => {
          // anvil gone or busy: the devnet's own watch reports a dead chain; this timer only keeps time.
        })
        .finally(() => {
          if (own === generation) schedule(own)
        })
    }, seconds * 1000).unref()
  }
  return {
    seconds,
    async start() {
      if (timer) return
      await rpc('evm_setIntervalMining', [0])
      await rpc('evm_setAutomine', [false])
      schedule(++generation)
    },
    async stop() {
      generation++
      clearTimeout(timer)
      timer = undefined
      await mining
    },
  }
}
