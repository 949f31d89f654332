import {BaseError as ViemBaseError, ContractFunctionRevertedError} from 'viem'

import type {ReceiptTimeoutError, RpcGaveUpError} from '../chain/errors.js'
import {BaseError} from '../errors/base.js'

/** A contract call reverted with one of the custom errors of contracts/*.sol. */
export class ContractRevertError extends BaseError {
  override name = 'ContractRevertError'
  readonly errorName: string
  readonly args: readonly unknown[]

  constructor(functionName: string, errorName: string, args: readonly unknown[], cause: unknown) {
    const renderedArgs = args.map((value) => (typeof value === 'bigint' ? value.toString() : String(value))).join(', ')
    super(`${functionName} reverted: ${errorName}(${renderedArgs})`, {cause, docsPath: 'design.md'})
    this.errorName = errorName
    this.args = args
  }
}

/** The chain could not be reached or refused the transaction for a reason other than a revert. */
export class ChainError extends BaseError {
  override name = 'ChainError'
}

/** A transaction mined but its receipt lacks the event the contract always emits on that path. */
export class MissingEventError extends ChainError {
  override name = 'MissingEventError'
  constructor(shortMessage: string) {
    super(shortMessage, {details: 'the deployed contracts may not match the ABI this build was generated from'})
  }
}

/** The chain returned a value (an enum index, a stored hash) this build does not know or did not expect. */
export class UnexpectedChainValueError extends ChainError {
  override name = 'UnexpectedChainValueError'
}

/** What a protocol action that sends a transaction can throw (see sendContractTransaction). */
export type TransactionErrorType = ContractRevertError | ChainError | ReceiptTimeoutError | RpcGaveUpError

/** Turns a viem failure into a one-line gensyn error that names the reverted custom error. */
export function toProtocolError(functionName: string, error: unknown): BaseError {
  if (error instanceof BaseError) return error
  if (error instanceof ViemBaseError) {
    const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError)
    if (reverted instanceof ContractFunctionRevertedError && reverted.data?.errorName) {
      return new ContractRevertError(functionName, reverted.data.errorName, reverted.data.args ?? [], error)
    }
    return new ChainError(`${functionName} failed: ${error.shortMessage}`, {cause: error, details: error.details})
  }
  return new ChainError(`${functionName} failed: ${error instanceof Error ? error.message : String(error)}`, {cause: error})
}

/** True when `error` is a revert with one of `names` (a lost race, say, that an actor can shrug off). */
export function isRevert(error: unknown, ...names: string[]): error is ContractRevertError {
  return error instanceof ContractRevertError && names.includes(error.errorName)
}
