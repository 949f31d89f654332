import {sleep} from '../util/sleep.js'
import {type ActorExit, exitReason} from './actorExit.js'
import type {ActorHandle} from './spawnActor.js'

/** Why a supervised process died: on its own (`crash`), or by the devnet's chaos monkey (`chaos`). */
export type CrashCause = 'crash' | 'chaos'

/** One death of a supervised actor's process and what the supervisor did about it. */
export type ActorCrash = {
  actor: string
  role: ActorHandle['role']
  cause: CrashCause
  exit: ActorExit
  /** Seconds from the supervisor's start to the death. */
  atSeconds: number
  /** The restart that followed, or undefined when the supervisor gave up. */
  restart?: {attempt: number; delayMs: number} | undefined
}

export type RestartPolicy = {
  /** Crashes in a row (each within `healthySeconds` of its start) after which the actor is given up. */
  maxQuickCrashes: number
  /** A process that ran at least this long before it died resets the count of quick crashes. */
  healthySeconds: number
  /** Delay before the first restart; each quick crash in a row doubles it, up to `maxDelayMs`. */
  baseDelayMs: number
  maxDelayMs: number
}

export const defaultRestartPolicy: RestartPolicy = {maxQuickCrashes: 5, healthySeconds: 30, baseDelayMs: 1000, maxDelayMs: 16_000}

export type SuperviseActorOptions = {
  /** Starts a fresh process of the actor; called once at first and once per restart. */
  start: () => ActorHandle
  /** How a restart begins, when not as the first start did (a submitter first asks the chain what it had posted). */
  restart?: (() => Promise<ActorHandle>) | undefined
  policy?: RestartPolicy | undefined
  /** Whether this exit is worth a restart (default: any exit but code 0). */
  shouldRestart?: ((exit: ActorExit) => boolean) | undefined
  /** Called at every death the supervisor saw, restarted or not. */
  onCrash?: ((crash: ActorCrash) => void) | undefined
  /** Called with each new process, the first included: the caller tracks pids. */
  onStart?: ((handle: ActorHandle) => void) | undefined
}

/** An actor whose process is restarted when it dies: an ActorHandle whose `exited` is the end of supervision. */
export type SupervisedActor = ActorHandle & {
  readonly crashes: readonly ActorCrash[]
  /** SIGKILLs the current process as a crash the supervisor restarts (the chaos monkey's kill); false when none runs. */
  crash(): boolean
}

/**
 * Keeps one actor alive the way a process supervisor would: a process that dies without being asked to is
 * started again after a backoff, from the same state directory, so it picks up its claimed tasks where the
 * chain says they are. `stop()` and `kill()` end supervision (a dropout's kill is meant to stick); so does an
 * exit with code 0 (the actor finished, e.g. a solver that left the market) and a crash loop.
 */
export function superviseActor(options: SuperviseActorOptions): SupervisedActor {
  const policy = options.policy ?? defaultRestartPolicy
  const shouldRestart = options.shouldRestart ?? ((exit: ActorExit) => exit.exitCode !== 0)
  const started = performance.now()
  const crashes: ActorCrash[] = []
  const ending = new AbortController()
  let current = launch(options.start())
  let ended = false
  let killed = false
  let chaosKill = false
  let quickCrashes = 0
  let finalExit: ActorExit | undefined

  function launch(handle: ActorHandle): ActorHandle {
    options.onStart?.(handle)
    return handle
  }

  async function superviseUntilDone(): Promise<ActorExit> {
    for (;;) {
      const processStarted = performance.now()
      const exit = await current.exited
      const cause: CrashCause = chaosKill ? 'chaos' : 'crash'
      chaosKill = false
      if (ended || (cause === 'crash' && !shouldRestart(exit))) return exit
      // A chaos kill is the devnet's doing: it never counts toward giving up.
      const ranSeconds = (performance.now() - processStarted) / 1000
      if (cause === 'crash') quickCrashes = ranSeconds >= policy.healthySeconds ? 1 : quickCrashes + 1
      const crash: ActorCrash = {actor: current.name, role: current.role, cause, exit, atSeconds: (performance.now() - started) / 1000}
      crashes.push(crash)
      if (quickCrashes > policy.maxQuickCrashes) {
        options.onCrash?.(crash)
        return exit
      }
      const delayMs = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, quickCrashes - 1))
      crash.restart = {attempt: crashes.length, delayMs}
      options.onCrash?.(crash)
      await sleep(delayMs, ending.signal)
      if (ended) return exit
      // A restart that cannot begin (the chain is gone) ends supervision with the last exit.
      const next = await (options.restart ?? (async () => options.start()))().catch(() => undefined)
      if (!next || ended) {
        void next?.stop()
        return exit
      }
      current = launch(next)
    }
  }

  const exited = superviseUntilDone().then((exit) => {
    finalExit = exit
    return exit
  })

  return {
    get name() {
      return current.name
    },
    get role() {
      return current.role
    },
    get account() {
      return current.account
    },
    get pid() {
      return current.pid
    },
    get exit() {
      return finalExit
    },
    get killed() {
      return killed
    },
    crashes,
    exited,
    crash() {
      if (ended || current.exit !== undefined) return false
      chaosKill = true
      void current.kill()
      return true
    },
    async stop() {
      ended = true
      ending.abort()
      await current.stop()
      return exited
    },
    async kill() {
      ended = true
      killed = true
      ending.abort()
      await current.kill()
      return exited
    },
  }
}

/** One line on a crash: how the process died, and when it comes back (or that it was given up). */
export function describeCrash(crash: ActorCrash): string {
  const {exit} = crash
  const how =
    crash.cause === 'chaos'
      ? 'killed by the chaos monkey (SIGKILL)'
      : `died (${exit.signal ?? `exit code ${exit.exitCode ?? '?'}`}${exitReason(exit) ? `: ${exitReason(exit)}` : ''})`
  const next = crash.restart ? `restarting in ${crash.restart.delayMs / 1000} s (restart ${crash.restart.attempt})` : 'crashed too often in a row: given up'
  return `${how}; ${next}`
}
