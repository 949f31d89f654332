import type {Address, Hex} from 'viem'

import type {BackendChoice} from '../../ml/backend/index.js'
import type {ConnectOptions} from '../../protocol/connect.js'
import type {TaskStatus} from '../../protocol/types.js'
import type {MappingKey} from '../../privacy/wrapModel.js'
import type {SettleReport} from '../runRoleLoop.js'

export type SubmitJobOptions = {
  jobPath: string
  dryRun: boolean
  wait: boolean
  /** Submit this many copies of the job (default 1): each copy is its own task (or split tasks). */
  count?: number | undefined
  /** Overrides the spec's verification.segments: how many segments a verifier replays (a devnet scenario's `protocol.samples`). */
  segments?: number | undefined
  backend: BackendChoice
  connectOptions: ConnectOptions
  /** Pin the latest profiles these posters published for the job's model (src/protocol/pinPostedProfiles.ts). */
  thresholdsFrom?: readonly Address[] | undefined
  /** Follow these tasks, posted earlier for this job by this account, instead of posting it (src/actors/adoptTasks.ts). */
  taskIds?: readonly bigint[] | undefined
  /** A private job's secret and key files (docs/privacy.md); default .gensyn/keys. */
  keysDir?: string | undefined
  /** A private job: called once its mapped data set is in the store, before any task is posted. */
  onPrivateData?: (privacy: {mapping: string; data: Hex; bytes: number}) => void
  /** A job on its own data: called once its data set is in the store, before any task is posted. */
  onData?: (published: {data: Hex; bytes: number}) => void
  /** Called once per task as it lands on chain, before any waiting. */
  onSubmitted?: (task: SubmittedTask) => void
  /** Called with the phase index (0 submitted … 5 settled or expired) whenever a task moves. */
  onStatus?: (taskId: string, phase: number, status: TaskStatus) => void
  /** Called after each settle call the submitter made: settled, a dispute started, reopened, re-verified. */
  onSettle?: (report: SettleReport) => void
  /** Called after each expire call: `from` Claimed is a solver's timeout (the task goes back to the pool). */
  onExpired?: (taskId: string, from: TaskStatus) => void
  signal?: AbortSignal
}

/** One task of the job; amounts are decimal wei strings so the result is plain JSON. */
export type SubmittedTask = {
  /** Absent in a dry run. */
  taskId?: string
  /** Which copy of the job (0-based; see `count`). */
  copy: number
  /** Its position in a split job (0-based), and the job's task count (1 when not split); for a parallel split, its round and the rounds. */
  index: number
  tasks: number
  /** A parallel split's task: which shard of the training data it trains (0-based). */
  shard?: number
  /** The task before it in a split job ('0' for none). */
  parentId: string
  specHash: Hex
  /** The absolute steps it trains, [start, end). */
  steps: {start: number; end: number}
  workUnits: string
  escrow: string
  transactionHash?: Hex
  gasUsed?: string
  // With --wait, once it is settled or expired:
  status?: TaskStatus
  verdict?: 'accepted' | 'rejected' | 'none'
  /** The price per work unit fixed at the (last) claim. */
  price?: string
  totalSteps?: string
  solverPaid?: string
  verifierPaid?: string
  tax?: string
  /** Paid out of the escrow to verifiers of rejected proofs (the slashed stake's shortfall). */
  fromEscrow?: string
  refunded?: string
  /** The last task of each copy: the delivered model's test accuracy (NaN, null in JSON, for a regression), test loss and final checkpoint. */
  testAccuracy?: number
  testLoss?: number
  /** A private job: the wrapped model (mapping + trained layers) on the raw test samples. */
  rawTestAccuracy?: number
  finalCheckpoint?: Hex
}

export type SubmitJobResult = {
  dryRun: boolean
  name: string
  /** The job file's spec hash (a split job's tasks each have their own, in `tasks`). */
  specHash: Hex
  /** payment.maxPrice in wei per work unit. */
  maxPrice: string
  copies: number
  /** Work units and escrow of all tasks of all copies. */
  workUnits: string
  escrow: string
  tasks: SubmittedTask[]
  /** A job on its own data: the published data set's hash (dataset.data of its tasks) and size. */
  dataset?: {data: Hex; bytes: number}
  /** The profiles the job pins (verification.profiles): the only ones whose thresholds judge it in tolerance mode. */
  profiles?: Hex[]
  /** A private job (docs/privacy.md): its mapping, the mapped data set's hash and the key files written. */
  privacy?: {mapping: string; data?: Hex; keyFiles?: string[]; mappedBytes?: number}
  // The first copy's job, for scripts (`jq .testAccuracy`): its last task.
  taskId?: string
  status?: TaskStatus
  verdict?: 'accepted' | 'rejected' | 'none'
  testAccuracy?: number
  testLoss?: number
  /** A private job: the wrapped model (mapping + trained layers) on the raw test samples. */
  rawTestAccuracy?: number
  /** The runtime the delivered model was evaluated on. */
  evaluatedOn?: string
  finalCheckpoint?: Hex
  /** Totals over every task, with --wait. */
  paid?: string
  refunded?: string
  /** With --wait: seconds from the start of the submission to the last task's end (and the model's evaluation). */
  wallSeconds?: number
  /** A parallel split (split.shards), with --wait: each round's tasks and the mean of their finals (the next round's start). */
  rounds?: ShardRound[]
}

/** One round of a parallel split: its tasks, the checkpoint they started from, and the mean of their verified finals. */
export type ShardRound = {round: number; taskIds: string[]; start?: Hex; mean?: Hex}

/** A private job's mapping key, with the block it was derived from and the mapped data set it made. */
export type JobMappingKey = MappingKey & {blockNumber: bigint; blockHash: Hex; data: Hex}
