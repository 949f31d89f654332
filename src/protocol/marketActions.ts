import {type Hex, parseEventLogs} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {SignedConnection} from './connect.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'

function market(connection: SignedConnection, functionName: string, args: readonly unknown[]): Promise<TransactionResult> {
  return sendContractTransaction(connection, {address: connection.contracts.market, abi: taskMarketAbi, functionName, args})
}

/** Takes an open task, locking the solver's stake. */
export function claimTask(connection: SignedConnection, taskId: bigint): Promise<TransactionResult> {
  return market(connection, 'claimTask', [taskId])
}

export type ProofCommitment = {proofRoot: Hex; manifestHash: Hex; checkpointCount: number}

export function commitProof(connection: SignedConnection, taskId: bigint, commitment: ProofCommitment): Promise<TransactionResult> {
  return market(connection, 'commitProof', [taskId, commitment.proofRoot, commitment.manifestHash, commitment.checkpointCount])
}

/** Locks the verifier's stake and reveals the randomness (from a block after the commit) that picks segments. */
export async function claimVerification(connection: SignedConnection, taskId: bigint): Promise<TransactionResult & {randomness: Hex}> {
  const transaction = await market(connection, 'claimVerification', [taskId])
  const [claimed] = parseEventLogs({abi: taskMarketAbi, logs: transaction.receipt.logs, eventName: 'VerificationClaimed'})
  if (!claimed) throw new Error('claimVerification mined without a VerificationClaimed event')
  return {...transaction, randomness: claimed.args.randomness}
}

/** `distance` is the largest replay distance measured, 1e18 fixed point (0: every replay matched bit for bit). */
export function postVerdict(connection: SignedConnection, taskId: bigint, accepted: boolean, reportHash: Hex, distance: bigint): Promise<TransactionResult> {
  return market(connection, 'postVerdict', [taskId, accepted, reportHash, distance])
}

/** Pays out a verified task once its challenge window has closed. Anyone may call it. */
export function settleTask(connection: SignedConnection, taskId: bigint): Promise<TransactionResult> {
  return market(connection, 'settle', [taskId])
}

/** Returns escrow and stakes of a task whose current stage ran past its deadline. Anyone may call it. */
export function expireTask(connection: SignedConnection, taskId: bigint): Promise<TransactionResult> {
  return market(connection, 'expire', [taskId])
}
