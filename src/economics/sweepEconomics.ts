import type {JobSpec} from '../ml/spec/schema.js'
import {economicsParamBounds, type EconomicsParams} from './economicsParams.js'
import {EconomicsInputError} from './errors.js'
import {jobEconomics} from './jobEconomics.js'
import {checkEconomicsValue, withValue} from './setEconomicsParam.js'
import type {StrategyEconomics} from './strategyEconomics.js'

export type SweepSpec = {path: string; values: number[]}

/** One point of a sweep: the parameter's value and every strategy's expected profit and P(caught) there. */
export type EconomicsSweep = {
  path: string
  points: {value: number; rows: Pick<StrategyEconomics, 'strategy' | 'expectedProfit' | 'caught'>[]}[]
}

/**
 * Parses `--sweep path=a:b:n` (n evenly spaced values from a to b; an integer parameter's are rounded and
 * repeated ones dropped).
 *
 * @throws EconomicsInputError naming the path or the part that is wrong
 */
export function parseSweep(text: string): SweepSpec {
  const match = /^([A-Za-z.]+)=([^:]+):([^:]+):([^:]+)$/.exec(text)
  if (!match) throw new EconomicsInputError(`--sweep: expected path=from:to:count like protocol.solverStake=0:2:21, got ${JSON.stringify(text)}`)
  const [, path = '', fromText = '', toText = '', countText = ''] = match
  const [from, to, count] = [Number(fromText), Number(toText), Number(countText)]
  if (!Number.isInteger(count) || count < 2 || count > 1000) throw new EconomicsInputError(`${path}: expected a count of points in [2, 1000] after the second colon, got ${JSON.stringify(countText)}`)
  checkEconomicsValue(path, from)
  checkEconomicsValue(path, to)
  const raw = Array.from({length: count}, (_, i) => from + ((to - from) * i) / (count - 1))
  const integer = Number.isInteger(from) && Number.isInteger(to) && isIntegerParam(path)
  const values = integer ? [...new Set(raw.map((value) => Math.round(value)))] : raw
  return {path, values: values.map((value) => checkEconomicsValue(path, value))}
}

const isIntegerParam = (path: string) => economicsParamBounds[path]?.[2] === true

/** Every strategy's expected profit at each value of the swept parameter, the others held at `params`. */
export function sweepEconomics(spec: JobSpec, params: EconomicsParams, sweep: SweepSpec): EconomicsSweep {
  return {
    path: sweep.path,
    points: sweep.values.map((value) => ({
      value,
      rows: jobEconomics(spec, withValue(params, sweep.path, value)).rows.map(({strategy, expectedProfit, caught}) => ({strategy, expectedProfit, caught})),
    })),
  }
}
