import {encodeAbiParameters, type Hex, keccak256, parseEventLogs, type TransactionReceipt} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {StackedProof} from '../pol/stackedProof.js'
import type {SignedConnection} from './connect.js'
import {type DisputeOutcome, disputeOutcomes} from './disputeTypes.js'
import {MissingEventError} from './errors.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'

function market(connection: SignedConnection, functionName: string, args: readonly unknown[], value?: bigint): Promise<TransactionResult> {
  return sendContractTransaction(connection, {address: connection.contracts.market, abi: taskMarketAbi, functionName, args, ...(value === undefined ? {} : {value})})
}

/** What the solver commits to at its claim: keccak256 of its 32-byte secret (the word itself, as abi.encode gives it). */
export function secretHashOf(secret: Hex): Hex {
  return keccak256(secret)
}

/**
 * The forced-error coin (docs/disputes.md, "Task lifecycle", 2), as `TaskMarket.forcedErrorOf` computes it:
 * uint256(keccak256(abi.encode(secret, seed))) % 10000 < forcedErrorBps, seed = blockhash(claimBlock + 1).
 */
export function forcedErrorCoin({secret, seed, forcedErrorBps}: {secret: Hex; seed: Hex; forcedErrorBps: number}): boolean {
  const word = BigInt(keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'bytes32'}], [secret, seed])))
  return word % 10_000n < BigInt(forcedErrorBps)
}

/** keccak256(abi.encode(honestRoot, honestManifestHash, secret)): commits the honest proof behind a forced error. */
export function sealHonest({honestRoot, honestManifestHash, secret}: {honestRoot: Hex; honestManifestHash: Hex; secret: Hex}): Hex {
  return keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'bytes32'}, {type: 'bytes32'}], [honestRoot, honestManifestHash, secret]))
}

/**
 * Takes an open task at the SolverBook's price of this block (the signer must have a listed offer with room and
 * an ask at most the price, docs/market.md section 3), locking the solver's stake and committing to the secret
 * behind `secretHash`. Returns the claim's block and the price fixed for this attempt (wei per work unit).
 */
export async function claimTask(connection: SignedConnection, taskId: bigint, secretHash: Hex): Promise<TransactionResult & {claimBlock: bigint; price: bigint}> {
  const transaction = await market(connection, 'claimTask', [taskId, secretHash])
  const [claimed] = parseEventLogs({abi: taskMarketAbi, logs: transaction.receipt.logs, eventName: 'TaskClaimed'})
  if (!claimed) throw new MissingEventError('claimTask mined without a TaskClaimed event')
  return {...transaction, claimBlock: transaction.receipt.blockNumber, price: claimed.args.price}
}

export type ProofCommitment = {
  proofRoot: Hex
  manifestHash: Hex
  checkpointCount: number
  checkpointInterval: number
  totalSteps: number
  /** {@link sealHonest} of the honest proof (the committed one unless the task is a forced error). */
  sealedHonest: Hex
  /**
   * A task with a parent (a split job's later task) stacks on the parent's proof: {@link stackedProof} of the
   * two manifests. Left out for a task without a parent.
   */
  start?: StackedProof | undefined
}

const ZERO_HASH: Hex = `0x${'00'.repeat(32)}`

/**
 * Records the forced-error seed `blockhash(claimBlock + 1)` of a claimed task (anyone may) before the EVM forgets
 * it, 256 blocks on: a solver whose training outlasts that window calls this first, or its commit reverts
 * RandomnessExpired (docs/security.md, finding 2).
 */
export function fixSeed(connection: SignedConnection, taskId: bigint): Promise<TransactionResult> {
  return market(connection, 'fixSeed', [taskId])
}

/**
 * Re-anchors the verification randomness of a committed task nobody claimed while `blockhash(commitBlock + 1)`
 * was readable: the draw becomes the hash of the block after this transaction's (docs/security.md, finding 2).
 */
export function renewRandomness(connection: SignedConnection, taskId: bigint): Promise<TransactionResult> {
  return market(connection, 'renewRandomness', [taskId])
}

/**
 * Needs block.number > claimBlock + 1 (the forced-error seed must exist): RandomnessNotReady before. `totalSteps`
 * may be below the task's maxSteps (an early stop); the rewards are then pro rata (docs/market.md, section 2).
 */
export function commitProof(connection: SignedConnection, taskId: bigint, commitment: ProofCommitment): Promise<TransactionResult> {
  return market(connection, 'commitProof', [
    taskId,
    commitment.proofRoot,
    commitment.manifestHash,
    commitment.checkpointCount,
    commitment.checkpointInterval,
    commitment.totalSteps,
    commitment.sealedHonest,
    commitment.start?.startCheckpoint ?? ZERO_HASH,
    commitment.start?.startProof ?? [],
    commitment.start?.parentFinalProof ?? [],
  ])
}

/** Locks the verifier's stake and reveals the randomness (from a block after the commit) that picks segments. */
export async function claimVerification(connection: SignedConnection, taskId: bigint): Promise<TransactionResult & {randomness: Hex}> {
  const transaction = await market(connection, 'claimVerification', [taskId])
  const [claimed] = parseEventLogs({abi: taskMarketAbi, logs: transaction.receipt.logs, eventName: 'VerificationClaimed'})
  if (!claimed) throw new MissingEventError('claimVerification mined without a VerificationClaimed event')
  return {...transaction, randomness: claimed.args.randomness}
}

export type Verdict = {
  accepted: boolean
  reportHash: Hex
  /** The largest replay distance measured, 1e18 fixed point (0: every replay matched bit for bit). */
  distance: bigint
  /** A rejection: the segment whose replay failed (0 for an acceptance). */
  segment: number
  /** A rejection: the end hash the replay of `segment` produced (zero for an acceptance). */
  replayHash: Hex
}

export function postVerdict(connection: SignedConnection, taskId: bigint, verdict: Verdict): Promise<TransactionResult> {
  return market(connection, 'postVerdict', [taskId, verdict.accepted, verdict.reportHash, verdict.distance, verdict.segment, verdict.replayHash])
}

/** The solver's reveal of a forced error, in the reveal window: the honest proof replaces the published one. */
export function revealForcedError(connection: SignedConnection, taskId: bigint, reveal: {secret: Hex; honestRoot: Hex; honestManifestHash: Hex}): Promise<TransactionResult> {
  return market(connection, 'revealForcedError', [taskId, reveal.secret, reveal.honestRoot, reveal.honestManifestHash])
}

/** Adds ether to the jackpot that pays whoever catches a forced error. Anyone may call it. */
export function fundJackpot(connection: SignedConnection, amount: bigint): Promise<TransactionResult> {
  return market(connection, 'fundJackpot', [], amount)
}

/** What one call of the settle pump did, read from its events. */
export type SettleOutcome = (
  | {type: 'settled'; accepted: boolean}
  | {type: 'dispute-started'; disputeId: bigint}
  | {type: 'reopened'}
  /** The task went back to Committed for a fresh verification (a rejection overturned). */
  | {type: 're-verify'}
  /** A dispute's outcome was applied and the task stays Verified (the next challenge, or finalising, comes next). */
  | {type: 'dispute-resolved'}
  | {type: 'moved'}
) & {
  /** Set when this call applied a finished dispute's outcome. */
  resolved?: {disputeId: bigint; outcome: DisputeOutcome} | undefined
}

/**
 * The one function that moves a verified task on once its reveal window has passed (docs/disputes.md,
 * "Task lifecycle", 8): it applies a finished dispute, opens the next queued one, or finalises. Call it until
 * the task is Settled or reopened; it reverts DisputeInProgress while a game is being played. Anyone may call it.
 */
export async function settleTask(connection: SignedConnection, taskId: bigint): Promise<TransactionResult & {outcome: SettleOutcome}> {
  const transaction = await market(connection, 'settle', [taskId])
  return {...transaction, outcome: settleOutcome(transaction.receipt)}
}

export function settleOutcome(receipt: Pick<TransactionReceipt, 'logs'>): SettleOutcome {
  const logs = parseEventLogs({abi: taskMarketAbi, logs: receipt.logs})
  const find = <Name extends (typeof logs)[number]['eventName']>(name: Name) =>
    logs.find((log): log is Extract<(typeof logs)[number], {eventName: Name}> => log.eventName === name)
  const resolvedLog = find('DisputeResolved')
  const resolved = resolvedLog ? {disputeId: resolvedLog.args.disputeId, outcome: disputeOutcomes[resolvedLog.args.outcome] ?? 'None'} : undefined
  const extra = resolved ? {resolved} : {}
  const started = find('DisputeStarted')
  if (started) return {type: 'dispute-started', disputeId: started.args.disputeId, ...extra}
  const settled = find('TaskSettled')
  if (settled) return {type: 'settled', accepted: settled.args.accepted, ...extra}
  if (find('TaskReopened')) return {type: 'reopened', ...extra}
  if (find('VerificationReopened')) return {type: 're-verify', ...extra}
  if (resolved) return {type: 'dispute-resolved', resolved}
  return {type: 'moved'}
}

// expire: its own file (typed outcome); re-exported here for the callers that import it with the other actions.
export {expireOutcome, type ExpireOutcome, expireTask} from './expireTask.js'

export type SegmentProof = {startHash: Hex; startProof: readonly Hex[]; endHash: Hex; endProof: readonly Hex[]}

/**
 * The solver contests a rejection in the challenge window (docs/disputes.md, "Task lifecycle", 6): the Merkle
 * proofs show the verdict's segment's committed start and end; the verdict's replay hash is the verifier's claim.
 */
export function disputeRejection(connection: SignedConnection, taskId: bigint, proof: SegmentProof): Promise<TransactionResult> {
  return market(connection, 'disputeRejection', [taskId, proof.startHash, proof.startProof, proof.endHash, proof.endProof])
}
