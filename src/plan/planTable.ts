import {detectionProbability, segmentsForTarget} from './detectionProbability.js'

export type PlanRow = {fakedFraction: number; faked: number; detection: number; segmentsFor99: number | null}

export type PlanTable = {segmentCount: number; sampled: number; rows: PlanRow[]}

/**
 * For a proof of `segmentCount` segments of which the verifier replays `sampled` (the final one always),
 * the chance of catching a cheater who faked each given fraction of the other segments, and how many
 * replays would reach 99%. A faked count is the fraction of the n - 1 non-final segments, rounded up
 * (a cheater never fakes the final segment: it is always checked).
 */
export function planTable({segmentCount, sampled, fakedFractions}: {segmentCount: number; sampled: number; fakedFractions: readonly number[]}): PlanTable {
  const rows = fakedFractions.map((fakedFraction) => {
    const faked = Math.min(segmentCount - 1, Math.max(1, Math.ceil(fakedFraction * (segmentCount - 1))))
    let segmentsFor99: number | null
    try {
      segmentsFor99 = segmentsForTarget({segmentCount, faked, target: 0.99})
    } catch {
      segmentsFor99 = null
    }
    return {fakedFraction, faked, detection: detectionProbability({segmentCount, sampled, faked}), segmentsFor99}
  })
  return {segmentCount, sampled: Math.min(sampled, segmentCount), rows}
}
