import {parse as parseYaml} from 'yaml'

import {InvalidInputError} from '../../errors/base.js'
import type {ResolvedScenario} from '../scenario.js'
import {applySettings} from './applySettings.js'
import type {SweepAxis, SweepValue} from './types.js'

/**
 * The grid of `--set path=v1,v2 [--set ...]`: each path and its values, every value checked against the
 * scenario schema alone (the plan checks each combination). A value is read as YAML (`0.5`, `true`), and taken
 * as the plain text when the schema wants a string there (ETH amounts such as `chain.solverStake=0.5,1`).
 */
export function parseGrid(sets: readonly string[], scenario: ResolvedScenario): SweepAxis[] {
  if (sets.length === 0) throw new InvalidInputError('--set: expected at least one parameter to sweep, e.g. --set protocol.taxBps=100,500')
  const axes: SweepAxis[] = []
  for (const set of sets) {
    const equals = set.indexOf('=')
    const path = set.slice(0, equals).trim()
    const texts = set.slice(equals + 1).split(',').map((text) => text.trim())
    if (equals < 1 || texts.some((text) => text === '')) throw new InvalidInputError(`--set ${set}: expected path=value1,value2,... e.g. protocol.taxBps=100,500`)
    if (axes.some((axis) => axis.path === path)) throw new InvalidInputError(`--set ${path}: set twice; give every value in one --set ${path}=v1,v2`)
    if (new Set(texts).size !== texts.length) throw new InvalidInputError(`--set ${set}: a value is listed twice`)
    axes.push({path, values: texts.map((text) => checkedValue(scenario, path, text))})
  }
  return axes
}

/** The value YAML reads from `text` if the schema takes it there, else `text` itself if that is taken, else the schema's error. */
function checkedValue(scenario: ResolvedScenario, path: string, text: string): SweepValue {
  const read = readScalar(text)
  try {
    applySettings(scenario, {[path]: read})
    return read
  } catch (error) {
    if (typeof read === 'string') throw error
    try {
      applySettings(scenario, {[path]: text})
      return text
    } catch {
      throw error
    }
  }
}

function readScalar(text: string): SweepValue {
  try {
    const value: unknown = parseYaml(text)
    return value === null || ['string', 'number', 'boolean'].includes(typeof value) ? (value as SweepValue) : text
  } catch {
    return text
  }
}
