import path from 'node:path'

import {InvalidInputError} from '../errors/base.js'
import {type PersistedDevnet, readDevnetState} from './devnetState.js'
import {loadScenario, type ResolvedScenario, resolveDefaultScenario} from './scenario.js'

export type RunScenario = {scenario: ResolvedScenario; saved?: PersistedDevnet | undefined}

/**
 * The scenario `gensyn devnet up` runs: a resumed `--state` keeps the one it was started with (its accounts,
 * contracts and jobs are that scenario's), else `--scenario`, else the embedded default.
 */
export async function scenarioForRun(options: {scenario?: string | undefined; state?: string | undefined}): Promise<RunScenario> {
  const saved = options.state === undefined ? undefined : await readDevnetState(options.state)
  if (saved) {
    if (options.scenario !== undefined && path.resolve(options.scenario) !== path.resolve(saved.scenario.source)) {
      throw new InvalidInputError(`--scenario: ${options.state} resumes scenario ${saved.scenario.name} (${saved.scenario.source}): leave --scenario out`)
    }
    return {scenario: saved.scenario, saved}
  }
  return {scenario: options.scenario ? await loadScenario(options.scenario) : resolveDefaultScenario()}
}
