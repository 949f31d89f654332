import seedrandom from 'seedrandom'

import type {ActorRole} from './spawnActor.js'
import type {SupervisedActor} from './superviseActor.js'

export type ChaosSettings = {
  /** How many processes to kill over the run. */
  kills: number
  /** Seeds the gaps between kills and the choice of victim, so a run's chaos can be replayed. */
  seed: number
  /** The roles it may kill. */
  roles: ActorRole[]
  /** Each kill comes a random time in [minGapSeconds, maxGapSeconds] after the previous one (or the start). */
  minGapSeconds: number
  maxGapSeconds: number
  /**
   * After this long armed without a busy actor of a least-hit role, any role will do: a role with no work in the
   * run (no whistleblower check, say) must not hold up the other kills for ever.
   */
  patienceSeconds: number
}

/** One kill: whom, when (seconds after the monkey started) and what the victim was doing. */
export type ChaosKill = {actor: string; role: ActorRole; atSeconds: number; during: string}

export type ChaosMonkey = {
  /** Tells the monkey a process has (re)started: a submitter's busy time counts from here. */
  started(actor: SupervisedActor): void
  /** Hands the monkey an actor's latest event: an armed monkey kills a busy actor of a role it has hit least. */
  observe(actor: SupervisedActor, event: Record<string, unknown>): void
  readonly kills: readonly ChaosKill[]
  stop(): void
}

/** The actor events that mean a process is in the middle of work on a task (src/actors/*: their event types). */
const workEvents = new Set(['claimed', 'resumed', 'progress', 'checkpoint', 'coin', 'seed-fixed', 'segment', 'checking', 'committed', 'challenged', 'revealed', 'rejection-disputed', 'dispute'])

/** A submitter prints nothing until its job is done: it counts as busy once it has run this long. */
const submitterBusyAfterSeconds = 5

/**
 * Kills actors' processes at random moments (SIGKILL, no clean-up), as a hostile world would, for the
 * supervisor to restart. It strikes while its victim works: once a random gap has passed it is armed, and
 * the next actor that reports an event about a task (a submitter: one that has run a few seconds) dies, taken from the
 * roles it has hit least so far, so four kills reach four roles when each has something to do.
 */
export function startChaosMonkey(settings: ChaosSettings, live: () => readonly SupervisedActor[], onKill: (kill: ChaosKill) => void): ChaosMonkey {
  const random = seedrandom(String(settings.seed))
  const started = performance.now()
  const kills: ChaosKill[] = []
  const hits = new Map<ActorRole, number>(settings.roles.map((role) => [role, 0]))
  const submitterStarts = new Map<SupervisedActor, number>()
  let armedAt: number | undefined
  let timer: NodeJS.Timeout | undefined
  let stopped = false

  const seconds = () => (performance.now() - started) / 1000
  function scheduleNext(): void {
    if (stopped || kills.length >= settings.kills) return
    const gap = settings.minGapSeconds + random() * (settings.maxGapSeconds - settings.minGapSeconds)
    timer = setTimeout(arm, gap * 1000)
    timer.unref()
  }
  function arm(): void {
    armedAt = seconds()
    // Submitters say nothing while they wait: look for a busy one now, and again on every event.
    strikeSubmitter()
  }
  function eligible(role: ActorRole): boolean {
    if (!hits.has(role)) return false
    if (armedAt !== undefined && seconds() - armedAt > settings.patienceSeconds) return true
    const present = new Set(live().map((actor) => actor.role))
    const least = Math.min(...[...hits].filter(([candidate]) => present.has(candidate)).map(([, count]) => count))
    return hits.get(role) === least
  }
  function strike(actor: SupervisedActor, during: string): void {
    if (!actor.crash()) return
    armedAt = undefined
    hits.set(actor.role, (hits.get(actor.role) ?? 0) + 1)
    const kill = {actor: actor.name, role: actor.role, atSeconds: seconds(), during}
    kills.push(kill)
    onKill(kill)
    scheduleNext()
  }
  function strikeSubmitter(): void {
    if (armedAt === undefined || stopped || !eligible('submitter')) return
    const now = seconds()
    const busy = live().filter((actor) => actor.role === 'submitter' && now - (submitterStarts.get(actor) ?? now) >= submitterBusyAfterSeconds)
    const victim = busy[Math.floor(random() * busy.length)]
    if (victim) strike(victim, 'waiting for its job')
  }

  scheduleNext()
  return {
    started(actor) {
      submitterStarts.set(actor, seconds())
    },
    observe(actor, event) {
      if (armedAt === undefined || stopped) return
      // Busy means at work on a task: a kill between tasks (listing an offer, losing a race) tests little.
      if (actor.role === 'submitter' || !workEvents.has(String(event.type))) return strikeSubmitter()
      if (eligible(actor.role)) strike(actor, String(event.type ?? 'working'))
      else strikeSubmitter()
    },
    kills,
    stop() {
      stopped = true
      clearTimeout(timer)
    },
  }
}
