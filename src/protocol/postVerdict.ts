import type {Hex} from 'viem'

import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'

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

export type PostVerdictParameters = {taskId: bigint} & Verdict

export type PostVerdictReturnType = TransactionResult

export type PostVerdictErrorType = TransactionErrorType

/**
 * The verifier's verdict on a claimed verification: accepted, or rejected at one segment with its replay's end hash.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function postVerdict(connection: SignedConnection, {taskId, accepted, reportHash, distance, segment, replayHash}: PostVerdictParameters): Promise<PostVerdictReturnType> {
  return sendMarketTransaction(connection, 'postVerdict', [taskId, accepted, reportHash, distance, segment, replayHash])
}
