import type {Hex} from 'viem'

import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'

export type RevealForcedErrorParameters = {
  taskId: bigint
  secret: Hex
  /** The attempt's seed, blockhash(claimBlock + 1) (getTask's `seed`, from ProofCommitted). */
  seed: Hex
  honestRoot: Hex
  honestManifestHash: Hex
}

export type RevealForcedErrorReturnType = TransactionResult

export type RevealForcedErrorErrorType = TransactionErrorType

/**
 * The solver's reveal of a forced error, in the reveal window: the secret, the seed and the honest proof open the
 * commitment the commit folded them into, and the honest proof replaces the published one.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function revealForcedError(connection: SignedConnection, {taskId, secret, seed, honestRoot, honestManifestHash}: RevealForcedErrorParameters): Promise<RevealForcedErrorReturnType> {
  return sendMarketTransaction(connection, 'revealForcedError', [taskId, secret, seed, honestRoot, honestManifestHash])
}
