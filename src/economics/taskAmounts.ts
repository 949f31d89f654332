import {estimateWork} from '../ml/estimate/estimateWork.js'
import {defaultWorkTable} from '../ml/estimate/workTable.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {checkpointSchedule} from '../ml/train/checkpointSchedule.js'
import {checkEveryRecheckSegmentUpTo} from './recheckLimit.js'
import type {EconomicsParams} from './economicsParams.js'

/** One task's money and sampling at the given parameters; amounts in wei (as float64: expectations are not integral). */
export type TaskAmounts = {
  workUnits: bigint
  /** Price per work unit paid at the claim: the market's, capped by payment.maxPrice. */
  priceWei: number
  /** Gross rewards, and what the solver and the verifier keep after tax. */
  solverReward: number
  verifierReward: number
  solverNet: number
  verifierNet: number
  /** Compute cost of training the task honestly, of one verifier's replays, of one whistleblower's re-check. */
  trainingCost: number
  verifyCost: number
  recheckCost: number
  /** The proof's segments, the task's checkpoint steps, the verifier's sample and the whistleblower's. */
  segmentCount: number
  schedule: number[]
  sampled: number
  checked: number
}

const weiPerEth = 1e18

/** Steps replayed by a sample of `count` segments: the final one plus the others' mean length each. */
function replayedSteps(schedule: readonly number[], count: number, includesFinal: boolean): number {
  const n = schedule.length - 1
  const steps = (schedule.at(-1) as number) - (schedule[0] as number)
  if (count >= n) return steps
  if (!includesFinal) return (steps / n) * count
  const final = (schedule[n] as number) - (schedule[n - 1] as number)
  return final + ((steps - final) / Math.max(1, n - 1)) * (count - 1)
}

/** The rewards, costs and samples of one task of `spec` (docs/economics.md, "The model"). */
export function taskAmounts(spec: JobSpec, params: EconomicsParams): TaskAmounts {
  const {workUnits} = estimateWork(spec, defaultWorkTable)
  const maxPrice = Number(spec.payment.maxPrice) * weiPerEth
  const priceWei = Math.min(params.market.price * weiPerEth, maxPrice)
  const solverReward = priceWei * Number(workUnits)
  const verifierReward = (solverReward * params.market.verifierFeeBps) / 10_000
  const keep = 1 - params.protocol.taxBps / 10_000
  const schedule = checkpointSchedule(spec)
  const segmentCount = schedule.length - 1
  const steps = (schedule.at(-1) as number) - (schedule[0] as number)
  const sampled = Math.min(segmentCount, params.verification.segments > 0 ? params.verification.segments : spec.verification.segments)
  const checked = segmentCount <= checkEveryRecheckSegmentUpTo ? segmentCount : Math.min(segmentCount, params.whistleblowers.segmentsToCheck)
  const trainingCost = solverReward * params.costShare
  return {
    workUnits,
    priceWei,
    solverReward,
    verifierReward,
    solverNet: solverReward * keep,
    verifierNet: verifierReward * keep,
    trainingCost,
    verifyCost: (trainingCost * replayedSteps(schedule, sampled, true)) / steps,
    recheckCost: params.whistleblowers.checkCost * weiPerEth,
    segmentCount,
    schedule,
    sampled,
    checked,
  }
}
