import type {StrategyName} from '../adversary/strategies.js'
import {detectionProbability} from '../plan/detectionProbability.js'
import {weakestCheatFaked} from '../plan/segmentsForWeakestCheat.js'

/** The proof a strategy makes, in the terms the plan needs (docs/adversaries.md, one section per strategy). */
export type ProofShape = {
  /** n: segments in the proof, and the task's checkpoint steps relative to its start. */
  segmentCount: number
  schedule: readonly number[]
}

export type StrategyDetection = {
  /** Training steps the strategy runs / the task's steps. */
  computeFraction: number
  /** One verifier replaying `sampled` segments (the final one always) catches it with this probability. */
  verifier: number
  /** One whistleblower replaying `checked` segments (uniform, the final one not guaranteed) catches it. */
  whistleblower: number
  /** How the two were derived. */
  basis: string
}

const segmentLength = (schedule: readonly number[], i: number) => (schedule[i + 1] as number) - (schedule[i] as number)

/** A whistleblower's uniform pick of `checked` of n segments against `faked` of them. */
const uniformCatch = (n: number, checked: number, faked: number) => (faked === 0 ? 0 : detectionProbability({segmentCount: n, sampled: checked, faked, includesFinal: false}))

/**
 * P(noise's sample misses the final segment's fault): it perturbs k = ceil(n / 2) of the checkpoints 1..n, and
 * the final segment is faked when checkpoint n - 1 or n is among them. Otherwise its perturbed checkpoints
 * fake at least k + 1 non-final segments (each fakes the segment it ends and the one it starts).
 */
function noiseMissesFinal(n: number): {missFinal: number; fakedAtLeast: number} {
  const k = Math.ceil(n / 2)
  if (n < 3 || k > n - 2) return {missFinal: 0, fakedAtLeast: n - 1}
  let missFinal = 1 // C(n - 2, k) / C(n, k)
  for (let i = 0; i < k; i++) missFinal *= (n - 2 - i) / (n - i)
  return {missFinal, fakedAtLeast: Math.min(n - 1, k + 1)}
}

/**
 * The chance that one verifier, and one whistleblower, catches a strategy's proof, and the compute it runs,
 * from the proof's shape (docs/economics.md, "Where each number comes from"). Exact for every strategy but
 * noise, whose figure is a lower bound (it counts k + 1 faked segments when the final one is not faked).
 */
export function strategyDetection(strategy: StrategyName, proof: ProofShape, sampled: number, checked: number): StrategyDetection {
  const {segmentCount: n, schedule} = proof
  const steps = (schedule.at(-1) as number) - (schedule[0] as number)
  const s = Math.min(sampled, n)
  const w = Math.min(checked, n)
  switch (strategy) {
    case 'honest':
      return {computeFraction: 1, verifier: 0, whistleblower: 0, basis: 'nothing faked'}
    case 'random-weights':
      return {computeFraction: 0, verifier: 1, whistleblower: 1, basis: 'initial-weights check; every segment fails a replay'}
    case 'copy':
      // Its segments replay from their committed starts: only the initial-weights check, which whistleblowers do not run, sees it.
      return {computeFraction: 0, verifier: 1, whistleblower: 0, basis: 'initial-weights check (a whistleblower replay passes)'}
    case 'skip-steps':
      return {computeFraction: Math.ceil(steps / 2) / steps, verifier: 1, whistleblower: 1, basis: 'every segment faked, the final one always replayed'}
    case 'wrong-data':
      return {computeFraction: 1, verifier: 1, whistleblower: 1, basis: 'every segment faked, the final one always replayed'}
    case 'truncate': {
      const stop = Math.floor(n / 2)
      return {
        computeFraction: ((schedule[stop] as number) - (schedule[0] as number)) / steps,
        verifier: 1,
        whistleblower: uniformCatch(n, w, n - stop),
        basis: `segments ${stop} to ${n - 1} faked, the final one always replayed`,
      }
    }
    case 'noise': {
      const {missFinal, fakedAtLeast} = noiseMissesFinal(n)
      const verifier = 1 - missFinal * (1 - detectionProbability({segmentCount: n, sampled: s, faked: fakedAtLeast}))
      return {computeFraction: 1, verifier, whistleblower: uniformCatch(n, w, fakedAtLeast), basis: `lower bound: final faked with P ${(1 - missFinal).toFixed(3)}, else ≥ ${fakedAtLeast} faked`}
    }
    case 'forge': {
      const m = weakestCheatFaked(n)
      // The forged segments are non-final, all checkpointInterval long; each costs one probe step.
      const forgedSteps = m * (n > 1 ? segmentLength(schedule, 0) : 0)
      return {
        computeFraction: (steps - forgedSteps + m) / steps,
        verifier: detectionProbability({segmentCount: n, sampled: s, faked: m}),
        whistleblower: uniformCatch(n, w, m),
        basis: `${m} of ${n - 1} non-final segments forged (hypergeometric)`,
      }
    }
  }
}
