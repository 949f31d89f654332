import {deriveSeed} from '../../random/deriveSeed.js'
import type {ResolvedScenario} from '../scenario.js'
import {applySettings} from './applySettings.js'
import type {SweepAxis, SweepCell, SweepValue} from './types.js'

/**
 * Every cell of the grid: the cartesian product of the axes' values, each `repeat` times. Repeat r of every
 * combination runs with the same seed (derived from the sweep's seed and r), so combinations are compared on
 * the same keys and choices and differ only by the parameters (common random numbers). Each combination is
 * checked against the scenario schema here, before any devnet starts.
 */
export function planCells(scenario: ResolvedScenario, axes: readonly SweepAxis[], repeat: number, sweepSeed: number): SweepCell[] {
  const combinations = axes.reduce<Record<string, SweepValue>[]>(
    (partial, axis) => partial.flatMap((settings) => axis.values.map((value) => ({...settings, [axis.path]: value}))),
    [{}],
  )
  for (const settings of combinations) applySettings(scenario, settings)
  const width = String(combinations.length).length
  return combinations.flatMap((settings, index) =>
    Array.from({length: repeat}, (_, position) => ({
      id: `c${String(index + 1).padStart(width, '0')}-r${position + 1}`,
      settings,
      repeat: position + 1,
      seed: repeatSeed(sweepSeed, position + 1),
    })),
  )
}

/** A devnet seed for repeat `repeat` of a sweep: 48 bits of a hash, exact as a JSON number. */
export function repeatSeed(sweepSeed: number, repeat: number): number {
  return Number.parseInt(deriveSeed(sweepSeed, `sweep-repeat-${repeat}`).slice(2, 14), 16)
}
