import type {ResolvedScenario} from '../scenario.js'

/** A scenario value a sweep sets: a number, a string (an ETH amount), a boolean, or whatever YAML gives. */
export type SweepValue = string | number | boolean | null

/** One swept parameter: a dotted path into the scenario (`protocol.taxBps`) and the values it takes. */
export type SweepAxis = {path: string; values: SweepValue[]}

/** One cell of the grid: one combination of the axes' values, one repeat, its own seed, devnet and run folder. */
export type SweepCell = {
  /** `c01-r1`: cell 1 of the grid, repeat 1; names the cell's state dir and its run folder. */
  id: string
  /** The axes' values, in the order of the axes. */
  settings: Record<string, SweepValue>
  /** 1-based. */
  repeat: number
  /** The devnet's --seed: derived from the sweep's seed and the repeat (docs/sweeps.md, "Seeds"). */
  seed: number
}

/** What a sweep runs: kept as plan.json in its folder, so a rerun (or --resume) finds it and runs only what is missing. */
export type SweepPlan = {
  version: 1
  /** The exact scenario every cell starts from (as run.json keeps it), before the cell's settings and seed. */
  scenario: ResolvedScenario
  axes: SweepAxis[]
  repeat: number
  seed: number
  cells: SweepCell[]
  createdAt: string
}
