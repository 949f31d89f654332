import {onParentGone} from '../util/parentWatch.js'

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
  // An actor spawned by a devnet stops when that devnet dies, even by SIGKILL, so none is ever orphaned: it
  // finishes its step as on Ctrl-C, and exits regardless two seconds later.
  const releaseParentWatch = onParentGone(() => {
    controller.abort()
    setTimeout(() => process.exit(1), 2000).unref()
  })
  try {
    return await work(controller.signal)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    releaseParentWatch()
  }
}
