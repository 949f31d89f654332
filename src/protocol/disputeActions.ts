import {type Hex, parseEventLogs} from 'viem'

import {pinpointGameAbi, taskMarketAbi} from '../chain/generated/index.js'
import type {ArbitrationPayload} from '../dispute/arbitration.js'
import type {SignedConnection} from './connect.js'
import {type DisputeOutcome, disputeOutcomes, type TraceHeader, type VoteChoice, voteChoices} from './disputeTypes.js'
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
 * A whistleblower challenges an accepted verdict (docs/disputes.md, "Task lifecycle", 6): `claimedEndHash` is
 * its own replay of `segment`; the Merkle proofs of the segment's committed checkpoints are built from the
 * proof's manifest in the store. Returns the challenge's position in the task's queue.
 */
export async function challengeTask(
  connection: SignedConnection,
  task: Pick<Task, 'id' | 'manifestHash' | 'proofRoot'>,
  claim: {segment: number; claimedEndHash: Hex},
): Promise<TransactionResult & {index: bigint}> {
  const proof = await segmentProof(connection.store, task, claim.segment)
  const transaction = await sendContractTransaction(connection, {
    address: connection.contracts.market,
    abi: taskMarketAbi,
    functionName: 'challenge',
    args: [task.id, claim.segment, claim.claimedEndHash, proof.startHash, proof.startProof, proof.endHash, proof.endProof],
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
