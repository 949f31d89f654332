import {EconomicsInputError} from './errors.js'
import {economicsParamBounds, type EconomicsParams} from './economicsParams.js'

/**
 * Checks one parameter path and value against its bounds and returns the number.
 *
 * @throws EconomicsInputError naming the path and what it expects
 */
export function checkEconomicsValue(path: string, value: number): number {
  const bounds = economicsParamBounds[path]
  if (bounds === undefined) throw new EconomicsInputError(`${path}: expected one of ${Object.keys(economicsParamBounds).join(', ')}`)
  const [min, max, integer] = bounds
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value)))
    throw new EconomicsInputError(`${path}: expected ${integer ? 'an integer' : 'a number'} in [${min}, ${max}], got ${value}`)
  return value
}

/**
 * Applies one `--set path=value` to the parameters (a new object; the input is left as it was).
 *
 * @throws EconomicsInputError for a malformed assignment, an unknown path or a value out of range
 */
export function setEconomicsParam(params: EconomicsParams, assignment: string): EconomicsParams {
  const match = /^([A-Za-z.]+)=(.+)$/.exec(assignment)
  if (!match) throw new EconomicsInputError(`--set: expected path=value like protocol.solverStake=2, got ${JSON.stringify(assignment)}`)
  const [, path = '', raw = ''] = match
  const value = Number(raw)
  if (raw.trim() === '' || Number.isNaN(value)) {
    checkEconomicsValue(path, 0)
    throw new EconomicsInputError(`${path}: expected a number, got ${JSON.stringify(raw)}`)
  }
  return withValue(params, path, checkEconomicsValue(path, value))
}

/** The parameters with the (already checked) value at `path`. */
export function withValue(params: EconomicsParams, path: string, value: number): EconomicsParams {
  const copy = structuredClone(params)
  const keys = path.split('.')
  let node = copy as unknown as Record<string, unknown>
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>
  node[keys.at(-1) as string] = value
  return copy
}
