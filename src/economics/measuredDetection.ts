import type {StrategyName} from '../adversary/strategies.js'

/** A detection rate measured by running the strategy's proofs through the real verifier. */
export type MeasuredDetection = {
  rejected: number
  decided: number
  /** The plan's prediction for the measured setting (segments and sample of the benchmark's proofs). */
  predicted: number
  source: string
}

const matrix = 'docs/benchmarks.md, detection matrix of `npm run bench:verification` (4 proofs × 4 cells: MLP and CNN, exact and tolerance; s = 2)'
const tradeOff =
  'docs/benchmarks.md, trade-off table of `npm run bench:verification` at s = 2 (4 proofs × 5 block hashes × 3 cells: MLP exact and tolerance, n = 20; CNN exact, n = 21)'

/**
 * The detection rates the repository measured per solver strategy (bench/verification.ts, recorded in
 * docs/benchmarks.md), with the plan's prediction for that setting. The economics computes P(caught) from the
 * plan for the job at hand and prints these beside it, so a reader sees how far the model was checked.
 * forge's prediction there is the plan's mean over the cells, (2 × 10/19 + 10/20) / 3; noise's is the bench's
 * own P(plan) for the 4 proofs it made, (2 × 0.836 + 0.981) / 3, since which checkpoints it perturbs is its seed's.
 */
export const measuredDetection: Readonly<Record<StrategyName, MeasuredDetection>> = {
  honest: {rejected: 0, decided: 16, predicted: 0, source: matrix},
  'random-weights': {rejected: 16, decided: 16, predicted: 1, source: matrix},
  'skip-steps': {rejected: 16, decided: 16, predicted: 1, source: matrix},
  'wrong-data': {rejected: 16, decided: 16, predicted: 1, source: matrix},
  copy: {rejected: 16, decided: 16, predicted: 1, source: matrix},
  truncate: {rejected: 16, decided: 16, predicted: 1, source: matrix},
  noise: {rejected: 48, decided: 60, predicted: (2 * 0.836 + 0.981) / 3, source: tradeOff},
  forge: {rejected: 34, decided: 60, predicted: (2 * (10 / 19) + 10 / 20) / 3, source: tradeOff},
}
