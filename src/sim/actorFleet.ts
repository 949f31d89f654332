import {BaseError} from '../errors/base.js'
import type {RosterEntry} from './actorRoster.js'
import {startChaosMonkey} from './chaosMonkey.js'
import {persistRun, recordProcessesWhileUp} from './devnetRecords.js'
import {commonActorArgs, type DevnetRun} from './devnetRun.js'
import {pauseDevnet} from './pauseDevnet.js'
import {type ActorHandle, spawnActor} from './spawnActor.js'
import {type SupervisedActor, superviseActor, type SuperviseActorOptions} from './superviseActor.js'

/**
 * Spawns the roster's long-running actors (a dropout solver killed in an earlier run stays dead: its task must
 * still come back through expire) and, with scenario.chaos, the chaos monkey. Returns the entries it spawned.
 */
export function spawnFleet(run: DevnetRun): RosterEntry[] {
  const gone = new Set(run.dropouts.map((dropout) => dropout.actor))
  const live = run.roster.filter((entry) => !gone.has(entry.name))
  for (const entry of live) spawnRosterActor(run, entry)
  const {chaos} = run.scenario
  if (chaos && chaos.kills > 0) {
    run.chaos = startChaosMonkey(chaos, () => run.actors.filter((actor) => actor.exit === undefined), (kill) =>
      run.emit({type: 'phase', message: `chaos: killed ${kill.actor} (SIGKILL) while ${kill.during}`}),
    )
  }
  return live
}

/** One roster actor as its own supervised `gensyn` process, its JSON lines turned into devnet events. */
function spawnRosterActor(run: DevnetRun, entry: RosterEntry): SupervisedActor {
  const {name, role, account} = entry
  const handle = superviseRunActor(run, () =>
    spawnActor({
      name,
      role,
      account: account.index,
      args: [...entry.args, '--account', String(account.index), ...commonActorArgs(run, entry.backend)],
      logDirs: run.paths.logDirs,
      env: run.workerEnv,
      onJson(event) {
        run.emit({type: 'actor', actor: name, role, event})
        run.chaos?.observe(handle, event)
        // docs/market.md, section 5: a dropout solver dies (SIGKILL, no clean-up) once it has stored its first
        // checkpoint of a claimed task, and is not restarted; the task must come back through expire.
        if (entry.dropout && event.type === 'checkpoint' && !handle.killed) {
          run.dropouts.push({actor: name, taskId: String(event.taskId), step: Number(event.step)})
          run.emit({type: 'phase', message: `${name}: killed (SIGKILL) after storing its checkpoint at step ${String(event.step)} of task ${String(event.taskId)}`})
          void handle.kill()
          // Saved at once: a resume after a crash must not bring it back.
          void persistRun(run).catch(() => {})
        }
      },
    }),
  )
  void handle.exited.then((exit) => {
    run.emit({type: 'actor-exit', actor: name, role, exit, killed: handle.killed})
    recordProcessesWhileUp(run)
  })
  return handle
}

/**
 * Runs an actor under the supervisor: a process that dies is started again after a backoff (from the same
 * state dir), the crash is reported, and processes.json follows the new pid.
 */
export function superviseRunActor(run: DevnetRun, start: () => ActorHandle, more: Pick<SuperviseActorOptions, 'restart' | 'shouldRestart'> = {}): SupervisedActor {
  // Unset while superviseActor starts the first process (onStart runs before it returns).
  let supervised: SupervisedActor | undefined
  const handle = superviseActor({
    start,
    ...more,
    onStart() {
      if (!supervised) return
      run.chaos?.started(supervised)
      recordProcessesWhileUp(run)
    },
    onCrash(crash) {
      run.crashes.push(crash)
      run.emit({type: 'actor-crash', actor: crash.actor, role: crash.role, crash})
    },
  })
  supervised = handle
  run.actors.push(handle)
  // A start that raced the stop (a submitter spawned after an RPC read while stopFleet ran) is stopped at once:
  // left running, `submit --wait` would wait for a settlement no stopped solver brings, and the run with it.
  if (run.actorsStopped) void handle.stop()
  else run.chaos?.started(handle)
  return handle
}

/** SIGSTOPs the live actors and stops mining (src/sim/pauseDevnet.ts); nothing once the actors are stopping. */
export async function pauseFleet(run: DevnetRun): Promise<void> {
  if (!run.connection) throw new BaseError('devnet: pause() before start()')
  if (run.paused || run.actorsStopped) return
  const live = run.actors.filter((actor) => actor.exit === undefined).map((actor) => actor.pid)
  run.paused = await pauseDevnet({publicClient: run.connection.publicClient, pids: live, mining: run.mining!})
}

/** Undoes pauseFleet: the chain's clock continues from the last block, mining and the actors go on. */
export async function resumeFleet(run: DevnetRun): Promise<void> {
  const current = run.paused
  run.paused = undefined
  await current?.resume()
}

/** Stops every actor (the chain stays up for the report), the market sampler, and saves the run's record. */
export async function stopFleet(run: DevnetRun): Promise<void> {
  run.actorsStopped = true
  run.chaos?.stop()
  // A frozen actor would only act on its SIGTERM after the grace period's SIGKILL: thaw it first.
  await resumeFleet(run).catch(() => {})
  run.stopping.abort()
  await Promise.all(run.actors.map((actor) => actor.stop()))
  await run.sampler?.stop()
  await persistRun(run)
}
