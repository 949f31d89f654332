import type {Hex} from 'viem'

import {type BackendName, runtimeIdString, selectBackend} from '../ml/backend/index.js'
import {evaluateCheckpoint} from '../ml/evaluate/index.js'
import {loadJobSpec, paymentFor, specHash as hashSpec} from '../ml/spec/index.js'
import type {ProofManifest} from '../pol/index.js'
import {connect, type ConnectOptions, requireSigner} from '../protocol/connect.js'
import {submitTask} from '../protocol/submitTask.js'
import {type TaskStatus, verdictOf} from '../protocol/types.js'
import {followTask} from './followTask.js'
import type {SettleReport} from './runRoleLoop.js'

export type SubmitJobOptions = {
  jobPath: string
  dryRun: boolean
  wait: boolean
  backend: BackendName
  connectOptions: ConnectOptions
  /** Called once the task is on chain, before any waiting. */
  onSubmitted?: (result: SubmitJobResult) => void
  /** Called with the phase index (0 submitted … 5 settled) whenever the task moves. */
  onStatus?: (phase: number, status: TaskStatus) => void
  /** Called after each settle call the submitter made: settled, a dispute started, reopened, re-verified. */
  onSettle?: (report: SettleReport) => void
  signal?: AbortSignal
}

/** Amounts are decimal wei strings so the result is plain JSON. */
export type SubmitJobResult = {
  dryRun: boolean
  specHash: Hex
  escrow: string
  solverReward: string
  verifierReward: string
  taskId?: string
  transactionHash?: Hex
  gasUsed?: string
  status?: TaskStatus
  verdict?: 'accepted' | 'rejected' | 'none'
  testAccuracy?: number
  /** The runtime the delivered model was evaluated on. */
  evaluatedOn?: string
  finalCheckpoint?: Hex
}

const phaseOf: Record<TaskStatus, number> = {None: 0, Submitted: 0, Claimed: 1, Committed: 2, Verifying: 3, Verified: 4, Settled: 5, Expired: 5}

/** The submitter's whole job: validate, publish, escrow, and (with `wait`) follow, settle and evaluate. */
export async function submitJob(options: SubmitJobOptions): Promise<SubmitJobResult> {
  const spec = await loadJobSpec(options.jobPath)
  const payment = paymentFor(spec)
  const summary = {
    dryRun: options.dryRun === true,
    specHash: hashSpec(spec),
    escrow: payment.escrow.toString(),
    solverReward: payment.solverReward.toString(),
    verifierReward: payment.verifierReward.toString(),
  }
  if (options.dryRun) return summary

  const connection = requireSigner(await connect({...options.connectOptions, needsSigner: true}))
  const submitted = await submitTask(connection, spec)
  const result: SubmitJobResult = {
    ...summary,
    taskId: submitted.taskId.toString(),
    transactionHash: submitted.transaction.hash,
    gasUsed: submitted.transaction.gasUsed.toString(),
  }
  options.onSubmitted?.(result)
  if (!options.wait) return result

  options.onStatus?.(0, 'Submitted')
  const final = await followTask({
    connection,
    taskId: submitted.taskId,
    signal: options.signal,
    onEvent: (event) => {
      if (event.type === 'status') options.onStatus?.(phaseOf[event.task.status], event.task.status)
      if (event.type === 'settle') options.onSettle?.(event)
    },
  })
  result.status = final.status
  result.verdict = verdictOf(final)
  if (final.status === 'Settled' && final.accepted) {
    const manifest = await connection.store.getJson<ProofManifest>(final.manifestHash)
    const last = manifest.checkpoints.at(-1)
    if (last) {
      result.evaluatedOn = runtimeIdString(await selectBackend(options.backend))
      const evaluation = await evaluateCheckpoint({spec, checkpoint: await connection.store.get(last.hash), backend: options.backend})
      result.testAccuracy = evaluation.testAccuracy
      result.finalCheckpoint = last.hash
    }
  }
  return result
}
