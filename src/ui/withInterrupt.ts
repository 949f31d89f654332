import {isAlive} from '../sim/devnetProcesses.js'

/**
 * Runs a role loop with an AbortSignal that the first Ctrl-C (or SIGTERM) fires, so the loop finishes its
 * current transaction and returns; a second Ctrl-C exits at once. Checkpoints already stored are kept.
 */
export async function withInterrupt<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController()
  let interrupts = 0
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++
    if (interrupts > 1) process.exit(130)
    process.stderr.write(`\n${signal}: finishing the current step, then stopping (again to force)\n`)
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  const parent = watchParent(controller)
  try {
    return await work(controller.signal)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    clearInterval(parent)
  }
}

/** An actor spawned by a devnet stops when that devnet dies, even by SIGKILL, so none is ever orphaned. */
function watchParent(controller: AbortController): NodeJS.Timeout | undefined {
  const parentPid = Number(process.env.GENSYN_PARENT_PID)
  if (!parentPid) return undefined
  const timer = setInterval(() => {
    // isAlive counts a zombie as gone: a killed devnet whose own parent was init (devnet up --detach) may stay
    // unreaped for a while, and kill(pid, 0) alone would keep its actors running after it.
    if (!isAlive(parentPid)) {
      clearInterval(timer)
      controller.abort()
      setTimeout(() => process.exit(1), 2000).unref()
    }
  }, 500)
  timer.unref()
  return timer
}
