export type StallWatch = {
  /** Told of the chain's head each time an actor reads it while it waits. */
  observe: (block: bigint) => void
}

export type CreateStallWatchParameters = {
  rpcUrl: string
  /** No new block for this long (ms) while someone waits is a stall. Default 10 s, or env GENSYN_STALL_S. */
  stallMs?: number | undefined
  /** Gets one line when the chain stalls and one when blocks resume. */
  report: (line: string) => void
  /** The clock (ms); a test may drive its own. */
  now?: (() => number) | undefined
}

/**
 * Says so when a chain stops producing blocks while an actor waits on it: every deadline and window is counted
 * in blocks or block time, so on a node that mines only on transactions (Hardhat's default, anvil without
 * --block-time) a quiet market stands still and every actor would wait in silence. Reports once per stall,
 * and once more when blocks come again.
 */
export function createStallWatch(parameters: CreateStallWatchParameters): StallWatch {
  const stallMs = parameters.stallMs ?? stallMsFromEnv()
  const now = parameters.now ?? (() => performance.now())
  let head: bigint | undefined
  let since = now()
  let stalled = false
  return {
    observe(block) {
      const at = now()
      if (head === undefined || block > head) {
        if (stalled) parameters.report(`blocks again at ${parameters.rpcUrl}: block ${block} after ${((at - since) / 1000).toFixed(0)} s without one`)
        head = block
        since = at
        stalled = false
        return
      }
      if (!stalled && at - since >= stallMs) {
        stalled = true
        parameters.report(`no new block for ${Number((stallMs / 1000).toFixed(1))} s at ${parameters.rpcUrl} (block ${head}): is the node mining? (Hardhat: --interval / anvil: --block-time)`)
      }
    },
  }
}

function stallMsFromEnv(): number {
  const value = process.env.GENSYN_STALL_S
  return value !== undefined && /^\d+(\.\d+)?$/.test(value) && Number(value) > 0 ? Number(value) * 1000 : 10_000
}
