import type {JobSpec} from '../spec/schema.js'
import {splitTaskSpecs} from '../spec/splitTaskSpecs.js'
import {taskStepRange} from '../train/taskStepRange.js'
import {escrowFor} from './escrowFor.js'
import {estimateWork, type WorkEstimate} from './estimateWork.js'
import type {FlopCount} from './kernelFlops.js'
import {stepFlops} from './stepFlops.js'
import type {StepPhase} from './unrollStep.js'
import {defaultWorkTable, type WorkTable} from './workTable.js'

/** The default verifier fee (ProtocolConfig.marketParams().verifierFeeBps at deployment). */
export const defaultVerifierFeeBps = 2000

export type EstimateReportParameters = {
  spec: JobSpec
  table?: WorkTable | undefined
  /** wei per work unit the fee is shown at. */
  price: bigint
  verifierFeeBps?: number | undefined
}

/** One task of a split job file: its round (`index`) and, in a parallel split, its shard. */
export type TaskEstimate = {index: number; shard?: number; start: number; end: number; workUnits: bigint; escrow: bigint}

export type EstimateReport = WorkEstimate & {
  name: string
  stepRange: {start: number; end: number}
  batchSize: number
  /** FLOPs per step of each phase of a step, by class. */
  flopsByPhase: Record<StepPhase, FlopCount>
  table: WorkTable
  price: bigint
  verifierFeeBps: number
  /** What the solver is paid at `price` for all the steps: workUnits * price. */
  solverPay: bigint
  /** escrow - solverPay: the verifier's fee, rounded up. */
  verifierFee: bigint
  /** escrowFor(workUnits, price, verifierFeeBps). */
  escrow: bigint
  /** A job file with `split` and no index: the tasks the submitter will post, each with its own escrow. */
  tasks?: TaskEstimate[] | undefined
}

/**
 * Everything `gensyn estimate` shows for one spec: the work estimate, its FLOPs per phase, and the fee at
 * `price` (solver pay, verifier fee and the escrow a submission at that maximum price locks). A job file
 * that declares `split` also gets the estimate of each task it becomes.
 *
 * @throws InvalidInputError when the spec is beyond a protocol limit
 */
export function estimateReport({spec, table = defaultWorkTable, price, verifierFeeBps = defaultVerifierFeeBps}: EstimateReportParameters): EstimateReport {
  const estimate = estimateWork(spec, table)
  const escrow = escrowFor(estimate.workUnits, price, verifierFeeBps)
  const solverPay = estimate.workUnits * price
  let tasks: TaskEstimate[] | undefined
  if (spec.split !== undefined && spec.split.index === undefined) {
    tasks = splitTaskSpecs(spec).map((task) => {
      const {workUnits} = estimateWork(task, table)
      const {index = 0, shard} = task.split ?? {}
      return {index, ...(shard === undefined ? {} : {shard}), ...taskStepRange(task), workUnits, escrow: escrowFor(workUnits, price, verifierFeeBps)}
    })
  }
  return {
    name: spec.name,
    ...estimate,
    stepRange: taskStepRange(spec),
    batchSize: spec.training.batchSize,
    flopsByPhase: stepFlops(spec).byPhase,
    table,
    price,
    verifierFeeBps,
    solverPay,
    verifierFee: escrow - solverPay,
    escrow,
    tasks,
  }
}
