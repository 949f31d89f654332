import {BaseError} from '../errors/base.js'
import type {RosterEntry} from './actorRoster.js'
import type {ResolvedScenario} from './scenario.js'

/**
 * The actor that profiles a scenario's jobs and posts the thresholds (its first honest verifier), and so the
 * poster whose profiles the scenario's submitters pin (`submit --thresholds-from`): a job is judged only by the
 * profiles it pins (docs/verification.md, "Thresholds are pinned by the job").
 *
 * @throws BaseError when the scenario has no honest verifier
 */
export function profilePoster(scenario: Pick<ResolvedScenario, 'name'>, roster: readonly RosterEntry[]): RosterEntry {
  const poster = roster.find((entry) => entry.role === 'verifier' && entry.strategy === 'honest')
  if (!poster) throw new BaseError(`scenario ${scenario.name}: profile: expected an honest verifier to post the thresholds`)
  return poster
}
