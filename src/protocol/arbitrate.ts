import type {SignedConnection} from './connect.js'
import type {ArbitrationPayload, DisputeOutcome} from './disputeTypes.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {resolvedOutcome, sendGameTransaction} from './sendGameTransaction.js'

export type ArbitrateParameters = {disputeId: bigint} & ArbitrationPayload

export type ArbitrateReturnType = TransactionResult & {outcome: DisputeOutcome}

export type ArbitrateErrorType = TransactionErrorType

/**
 * Has the contract re-execute the disputed element (anyone may, in time); returns the outcome it decided.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export async function arbitrate(connection: SignedConnection, {disputeId, op, descriptorHashes, outputHashes, inputs}: ArbitrateParameters): Promise<ArbitrateReturnType> {
  const transaction = await sendGameTransaction(connection, 'arbitrate', [disputeId, op, descriptorHashes, outputHashes, inputs])
  return {...transaction, outcome: resolvedOutcome(transaction)}
}
