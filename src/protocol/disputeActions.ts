import {type Hex, parseEventLogs} from 'viem'

import {pinpointGameAbi, taskMarketAbi} from '../chain/generated/index.js'
import {type ChallengeClaim, challengeCommitment, challengeSalt, sealClaim} from './challengeCommitment.js'
import type {SignedConnection} from './connect.js'
import {type ArbitrationPayload, type DisputeOutcome, disputeOutcomes, type TraceHeader, type VoteChoice, voteChoices} from './disputeTypes.js'
import {gameAddress} from './gameAddress.js'
import {disputeRejection} from './marketActions.js'
import {segmentProof} from './segmentProof.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'
import type {Task} from './types.js'

async function game(connection: SignedConnection, functionName: string, args: readonly unknown[]): Promise<TransactionResult> {
  return sendContractTransaction(connection, {address: await gameAddress(connection), abi: pinpointGameAbi, functionName, args})
}

/** Steps round: the caller's state hash S_mid for `mid = (lo + hi) / 2`. */
export function postState(connection: SignedConnection, disputeId: bigint, stateHash: Hex): Promise<TransactionResult> {
  return game(connection, 'postState', [disputeId, stateHash])
}

/** TraceHeader round: the caller's element count, graph hash g_m and final commitment c_m of the disputed step. */
export function postTraceHeader(connection: SignedConnection, disputeId: bigint, header: TraceHeader): Promise<TransactionResult> {
  return game(connection, 'postTraceHeader', [disputeId, header.opCount, header.graphHash, header.finalCommitment])
}

/** Operators round: the caller's commitment c_mid for `mid = (lo + hi) / 2`. */
export function postCommitment(connection: SignedConnection, disputeId: bigint, commitment: Hex): Promise<TransactionResult> {
  return game(connection, 'postCommitment', [disputeId, commitment])
}

/** Has the contract re-execute the disputed element (anyone may, in time); returns the outcome it decided. */
export async function arbitrate(connection: SignedConnection, disputeId: bigint, payload: ArbitrationPayload): Promise<TransactionResult & {outcome: DisputeOutcome}> {
  const transaction = await game(connection, 'arbitrate', [disputeId, payload.op, payload.descriptorHashes, payload.outputHashes, payload.inputs])
  return {...transaction, outcome: resolvedOutcome(transaction)}
}

/** A party sends the disputed element to the committee (the contract cannot re-execute it). */
export function escalate(connection: SignedConnection, disputeId: bigint): Promise<TransactionResult> {
  return game(connection, 'escalate', [disputeId])
}

/** Draws a pending committee from blockhash(drawAnchor + 1) (anyone; docs/security.md, finding 4). */
export function drawCommittee(connection: SignedConnection, disputeId: bigint): Promise<TransactionResult> {
  return game(connection, 'drawCommittee', [disputeId])
}

/** A committee member's vote. */
export function vote(connection: SignedConnection, disputeId: bigint, choice: VoteChoice): Promise<TransactionResult> {
  return game(connection, 'vote', [disputeId, voteChoices[choice]])
}

/**
 * After the current round's deadline (anyone): the party that posted wins, an arbitration goes to the
 * committee, a committee is tallied. Returns the outcome when the dispute resolved.
 */
export async function timeoutDispute(connection: SignedConnection, disputeId: bigint): Promise<TransactionResult & {outcome: DisputeOutcome}> {
  const transaction = await game(connection, 'timeout', [disputeId])
  return {...transaction, outcome: resolvedOutcome(transaction)}
}

/**
 * A whistleblower commits to a challenge of an accepted verdict in its challenge window (docs/disputes.md,
 * "Task lifecycle", 6): only the commitment goes on chain, with the claim sealed for this account alone (see
 * {@link readCommittedClaim}), so nobody can copy it before the window closes. Returns its seat in the queue.
 */
export async function commitChallenge(
  connection: SignedConnection,
  task: Pick<Task, 'id' | 'verdictBlock'>,
  claim: ChallengeClaim,
): Promise<TransactionResult & {index: bigint}> {
  const salt = await challengeSalt(connection, task)
  const transaction = await sendContractTransaction(connection, {
    address: connection.contracts.market,
    abi: taskMarketAbi,
    functionName: 'commitChallenge',
    args: [task.id, challengeCommitment(task.id, connection.account.address, claim, salt), sealClaim(claim, salt)],
  })
  const [committed] = parseEventLogs({abi: taskMarketAbi, logs: transaction.receipt.logs, eventName: 'ChallengeCommitted'})
  return {...transaction, index: committed ? BigInt(committed.args.index) : -1n}
}

/**
 * Opens the caller's committed challenge in the open window: the claim and salt, with the Merkle proofs of the
 * segment's committed checkpoints built from the proof's manifest in the store. Returns its index in the queue.
 */
export async function openChallenge(
  connection: SignedConnection,
  task: Pick<Task, 'id' | 'manifestHash' | 'proofRoot' | 'verdictBlock'>,
  claim: ChallengeClaim,
): Promise<TransactionResult & {index: bigint}> {
  const [proof, salt] = await Promise.all([segmentProof(connection.store, task, claim.segment), challengeSalt(connection, task)])
  const transaction = await sendContractTransaction(connection, {
    address: connection.contracts.market,
    abi: taskMarketAbi,
    functionName: 'openChallenge',
    args: [task.id, claim.segment, claim.claimedEndHash, salt, proof.startHash, proof.startProof, proof.endHash, proof.endProof],
  })
  const [queued] = parseEventLogs({abi: taskMarketAbi, logs: transaction.receipt.logs, eventName: 'ChallengeQueued'})
  return {...transaction, index: queued ? BigInt(queued.args.index) : -1n}
}

/** The solver contests a rejection: proves the verdict's segment's committed checkpoints from its manifest. */
export async function disputeTaskRejection(connection: SignedConnection, task: Pick<Task, 'id' | 'manifestHash' | 'proofRoot' | 'rejectSegment'>): Promise<TransactionResult> {
  return disputeRejection(connection, task.id, await segmentProof(connection.store, task, task.rejectSegment))
}

function resolvedOutcome(transaction: TransactionResult): DisputeOutcome {
  const [resolved] = parseEventLogs({abi: pinpointGameAbi, logs: transaction.receipt.logs, eventName: 'DisputeResolved'})
  return resolved ? (disputeOutcomes[Number(resolved.args.outcome)] ?? 'None') : 'None'
}
