import path from 'node:path'

import {BaseError} from '../errors/base.js'
import type {RosterEntry} from './actorRoster.js'
import {profilePoster} from './profilePoster.js'
import type {ResolvedScenario} from './scenario.js'
import {exitReason} from './actorExit.js'
import {spawnActor} from './spawnActor.js'

export type PostScenarioProfilesParameters = {
  scenario: ResolvedScenario
  profile: NonNullable<ResolvedScenario['profile']>
  roster: readonly RosterEntry[]
  logDirs: readonly string[]
  /** The actors' state dir (devnet.json): the profile posts on that chain. */
  stateDir: string
  env: Record<string, string> | undefined
  emit: (event: {type: 'phase'; message: string}) => void
}

/**
 * Tolerance-mode verifiers judge by the profiles a job pins: before any actor starts, the first honest verifier
 * profiles each job across the scenario's runtimes and posts them (one `gensyn profile --job --post` process per
 * job, logged like an actor); the submitters then pin that poster's profiles (createDevnet, `--thresholds-from`).
 *
 * @throws BaseError when the scenario has no honest verifier or a profile fails
 */
export async function postScenarioProfiles({scenario, profile, roster, logDirs, stateDir, env, emit}: PostScenarioProfilesParameters): Promise<void> {
  const poster = profilePoster(scenario, roster)
  for (const file of new Set(scenario.jobs.map((job) => job.path))) {
    emit({type: 'phase', message: `profiling ${path.basename(file)} across ${profile.runtimes.join(', ')} (${profile.seeds} seeds) and posting its thresholds as ${poster.name}`})
    const args = ['profile', '--job', file, '--post', '--runtimes', profile.runtimes.join(','), '--seeds', String(profile.seeds)]
    if (profile.segments !== undefined) args.push('--segments', String(profile.segments))
    const account = String(poster.account.index)
    const name = `profile-${path.basename(file, path.extname(file))}`
    const handle = spawnActor({name, role: 'verifier', account: poster.account.index, args: [...args, '--account', account, '--json', '--state-dir', stateDir], logDirs, env})
    const exit = await handle.exited
    if (exit.exitCode !== 0) throw new BaseError(`scenario ${scenario.name}: profiling ${path.basename(file)} failed: ${exitReason(exit)}`)
  }
}
