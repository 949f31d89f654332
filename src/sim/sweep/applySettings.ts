import {InvalidInputError} from '../../errors/base.js'
import {type ResolvedScenario, scenarioSchema} from '../scenario.js'
import type {SweepValue} from './types.js'

/**
 * The scenario with `settings` (dotted path -> value) applied and checked against the scenario schema, as if the
 * file had said so: a path the schema does not have, or a value it refuses, is a one-line error naming both.
 */
export function applySettings(scenario: ResolvedScenario, settings: Readonly<Record<string, SweepValue>>): ResolvedScenario {
  const {source, jobs, ...rest} = scenario
  const raw = structuredClone({...rest, jobs: jobs.map(({path: _resolved, ...job}) => job)}) as Record<string, unknown>
  for (const [path, value] of Object.entries(settings)) setAt(raw, path, value)
  const parsed = scenarioSchema.safeParse(raw)
  if (!parsed.success) {
    const [issue] = parsed.error.issues
    const field = issue?.path.map(String).join('.') || '(root)'
    const set = Object.entries(settings).map(([path, value]) => `${path}=${String(value)}`).join(' ')
    throw new InvalidInputError(`--set ${set}: ${field}: ${issue?.message ?? 'not a valid scenario'}`)
  }
  // The job files stay the ones the scenario resolved (a sweep sets parameters, not which files a job reads).
  return {...parsed.data, source, jobs: parsed.data.jobs.map((job, index) => ({...job, path: jobs[index]!.path}))}
}

/** Sets `path` (`protocol.taxBps`, `actors.solvers.0.claimDelayMs`) in a plain scenario object, making missing sections. */
function setAt(target: Record<string, unknown>, path: string, value: SweepValue): void {
  const parts = path.split('.')
  if (parts.some((part) => part === '')) throw new InvalidInputError(`--set ${path}: expected a dotted path into the scenario, e.g. protocol.taxBps`)
  if (parts[0] === 'seed') throw new InvalidInputError(`--set ${path}: a sweep derives each run's seed from --seed; it is not a parameter to sweep`)
  if (parts[0] === 'jobs' && parts.at(-1) === 'file') throw new InvalidInputError(`--set ${path}: a sweep sets parameters, not which job files run (make a scenario per job)`)
  let node: unknown = target
  for (const [depth, part] of parts.entries()) {
    const last = depth === parts.length - 1
    const where = parts.slice(0, depth).join('.') || '(root)'
    if (Array.isArray(node)) {
      const index = Number(part)
      if (!Number.isInteger(index) || index < 0 || index >= node.length) {
        throw new InvalidInputError(`--set ${path}: ${where} is a list of ${node.length}: expected an index from 0 to ${node.length - 1}, got ${part}`)
      }
      if (last) node[index] = value
      else node = node[index]
      continue
    }
    if (node === null || typeof node !== 'object') throw new InvalidInputError(`--set ${path}: ${where} is a value, not a section with fields`)
    const section = node as Record<string, unknown>
    if (last) section[part] = value
    else node = section[part] ??= {}
  }
}
