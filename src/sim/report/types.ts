/**
 * What the report adds to the end-of-run numbers: the run over time, read back from the chain
 * (docs/report.md). Every amount is a decimal string (wei or gas), every time chain-clock seconds since
 * the deployment block, so the JSON is exact and the charts share one time axis.
 */

/** The phases a task passes through, in order; `settled` and `expired` are where it ends. */
export const taskPhases = ['submitted', 'claimed', 'committed', 'verifying', 'challenge window'] as const
export type TaskPhase = (typeof taskPhases)[number]

/** One stretch of one task in one phase: [start, end) in blocks and seconds. */
export type TimelineSegment = {
  taskId: string
  /** 1 for the first claim, +1 for every reopening (a rejection or a timeout). */
  attempt: number
  phase: TaskPhase
  startBlock: string
  endBlock: string
  start: number
  end: number
  /** Still in this phase when the report was read (its end is the head). */
  open: boolean
}

/** Where a task ended, if it did. */
export type TimelineEnd = {taskId: string; outcome: 'settled' | 'expired'; block: string; seconds: number}

export type TaskTimeline = {segments: TimelineSegment[]; ends: TimelineEnd[]}

/** Wallet and stake of every account at sampled blocks (anvil keeps the history of every block). */
export type BalanceHistory = {
  accounts: {name: string; role: string; strategy?: string}[]
  samples: {block: string; seconds: number; wallet: string[]; stake: string[]}[]
}

/** The detection matrix's columns. */
export const detectionColumns = ['caught / slashed', 'not caught'] as const

/**
 * One row of the detection matrix: every actor of one role and strategy, and what became of each play
 * (a solver's claim, a verifier's verification, a whistleblower's challenge, a forced error).
 */
export type DetectionRow = {
  /** e.g. `solver: skip-steps`, `verifier: lazy`, `verifier: honest`, `forced error`. */
  label: string
  role: string
  strategy: string
  /** Whether this row cheats or plays adversarially: its catches are the protocol working, for honest rows they are mistakes. */
  adversarial: boolean
  actors: string[]
  plays: number
  caught: number
  notCaught: number
  /** Plays the run ended before they were decided. */
  pending: number
  /** Who caught it (a winner's name, `timeout`, `no winner`), with how many times. */
  caughtBy: {by: string; count: number}[]
}

/** The phases gas is grouped by; `other` is staking, offers and set-up. */
export const gasPhases = ['submission', 'claim', 'commit', 'verification', 'challenge/dispute', 'settlement', 'other'] as const
export type GasPhase = (typeof gasPhases)[number]

export type GasByPhase = {phase: GasPhase; gas: string; transactions: number}[]

export type RunHistory = {
  fromBlock: string
  toBlock: string
  balances: BalanceHistory
  timeline: TaskTimeline
  detection: DetectionRow[]
  gas: GasByPhase
  /** Whistleblowers joining and leaving the active set (absent in reports written before it was recorded). */
  whistleblowers?: WhistleblowerPoint[]
  /** Every committed proof's training curve (absent in reports written before it existed, or without a store). */
  curves?: TrainingCurve[]
}

/** One checkpoint of a committed proof, scored on the job's test split (the job's own loss function). */
export type CurvePoint = {
  step: number
  /** Mean test loss; null when the checkpoint could not be scored (a forged or unreadable one). */
  testLoss: number | null
  /** Share of test samples (tokens, for a language model) predicted right; null for a regression. */
  testAccuracy: number | null
}

/** A segment a verifier replayed from this proof, from the verification report its verdict names. */
export type CurveReplay = {verifier: string; segment: number; startStep: number; endStep: number; match: boolean}

/**
 * The training curve of one committed proof (a task's first proof, a later one after a rejection, the honest
 * proof a forced error sealed): every checkpoint of its manifest, scored, and the segments its verifiers replayed.
 */
export type TrainingCurve = {
  taskId: string
  /** 1 for the task's first committed proof, +1 for each proof committed after it. */
  proof: number
  solver: string
  /** The solver's strategy (`honest`, or an adversary), when known. */
  strategy?: string
  manifestHash: string
  /** The task's metric beside the loss: test accuracy for a classifier, none for a regression (its loss is its metric). */
  metric: 'test accuracy' | 'none'
  points: CurvePoint[]
  replays: CurveReplay[]
  /** The last verdict posted on this proof; `overturned`: accepted, then the task reopened (a challenge won). */
  verdict: 'accepted' | 'rejected' | 'overturned' | 'none'
  /** Why the curve is missing or incomplete (the manifest or a checkpoint not in the store, a forged checkpoint). */
  problem?: string
}

/** A partial report's reason when the user stopped the run (Ctrl-C, or q on the dashboard): not a failure of the run. */
export const STOPPED_BY_USER = 'interrupted (Ctrl-C or q) before every job settled'

/** One whistleblower joining or leaving the active set, and how many were active after it. */
export type WhistleblowerPoint = {seconds: number; block: string; account: string; joined: boolean; active: number}
