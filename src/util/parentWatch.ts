import {isAlive} from './processLiveness.js'

// Node builtins only: bin/run.js starts the watch before it loads oclif and a command's modules.

/** How often the parent is looked for: an actor outlives a dead devnet by about this much plus its way out. */
export const parentPollMs = 500

type ParentWatch = {parentPid: number; onGone: (() => void) | undefined; timer: NodeJS.Timeout}

// Kept on globalThis, not in this module: bin/run.js starts the watch from dist/util/parentWatch.js, while the
// command's withInterrupt runs from the CLI bundle (dist/cli), which has its own copy of this module.
const watchKey = Symbol.for('gensyn.parentWatch')
const shared = globalThis as {[watchKey]?: ParentWatch}

/**
 * Watches the process named by GENSYN_PARENT_PID (a devnet sets it for every actor it spawns), so that an actor
 * never outlives its devnet, even one killed with SIGKILL. bin/run.js starts it first thing: an actor whose devnet
 * dies while it is still loading its modules (a second or more of CPU on a busy machine) stops then, not after
 * it has started. Until a role loop hands over with {@link onParentGone}, a dead parent ends the process at once,
 * as there is nothing to finish. Does nothing without GENSYN_PARENT_PID; starting it twice starts one watch.
 */
export function watchParent(env: NodeJS.ProcessEnv = process.env): void {
  const parentPid = Number(env.GENSYN_PARENT_PID)
  if (shared[watchKey] || !parentPid) return
  if (!isAlive(parentPid)) exitOrphaned(parentPid)
  const started: ParentWatch = {parentPid, onGone: undefined, timer: setInterval(() => check(started), parentPollMs)}
  started.timer.unref()
  shared[watchKey] = started
}

/**
 * Has `handler` called instead of the immediate exit when the parent dies, until the returned release is called:
 * a role loop uses it to finish its current transaction first. Starts the watch if bin/run.js did not.
 */
export function onParentGone(handler: () => void): () => void {
  watchParent()
  const current = shared[watchKey]
  if (!current) return () => {}
  current.onGone = handler
  return () => {
    if (current.onGone === handler) current.onGone = undefined
  }
}

function check(started: ParentWatch): void {
  // isAlive counts a zombie as gone: a killed devnet whose own parent was init (devnet up --detach) may stay
  // unreaped for a while, and kill(pid, 0) alone would keep its actors running after it.
  if (isAlive(started.parentPid)) return
  clearInterval(started.timer)
  if (started.onGone) started.onGone()
  else exitOrphaned(started.parentPid)
}

function exitOrphaned(parentPid: number): never {
  process.stderr.write(`the process that started this one (pid ${parentPid}) is gone: exiting\n`)
  process.exit(1)
}
