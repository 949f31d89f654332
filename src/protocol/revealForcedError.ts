import type {Hex} from 'viem'

import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'

export type RevealForcedErrorParameters = {taskId: bigint; secret: Hex; honestRoot: Hex; honestManifestHash: Hex}

export type RevealForcedErrorReturnType = TransactionResult

export type RevealForcedErrorErrorType = TransactionErrorType

/**
 * The solver's reveal of a forced error, in the reveal window: the honest proof replaces the published one.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function revealForcedError(connection: SignedConnection, {taskId, secret, honestRoot, honestManifestHash}: RevealForcedErrorParameters): Promise<RevealForcedErrorReturnType> {
  return sendMarketTransaction(connection, 'revealForcedError', [taskId, secret, honestRoot, honestManifestHash])
}
