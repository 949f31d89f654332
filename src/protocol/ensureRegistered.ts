import {roleRegistryAbi} from '../chain/generated/index.js'
import type {SignedConnection} from './connect.js'
import {type ChainError, type ContractRevertError, toProtocolError, type TransactionErrorType} from './errors.js'
import {getProtocolParams} from './getProtocolParams.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'
import {type BlockParameter, Role, type RoleName} from './types.js'

export type StakeInfo = {free: bigint; locked: bigint; unbonding: bigint; releaseAt: bigint}

export type GetStakeParameters = {address: `0x${string}`} & BlockParameter

export type GetStakeReturnType = StakeInfo

export type GetStakeErrorType = ContractRevertError | ChainError

/**
 * `address`'s stake in the RoleRegistry: free, locked by tasks, unbonding and when the unbonding releases.
 *
 * @throws {@link ChainError} when the node fails, {@link ContractRevertError} when the read reverts
 */
export async function getStake(connection: Pick<SignedConnection, 'publicClient' | 'contracts'>, {address, blockNumber}: GetStakeParameters): Promise<GetStakeReturnType> {
  try {
    const [free, locked, unbonding, releaseAt] = await connection.publicClient.readContract({
      address: connection.contracts.registry,
      abi: roleRegistryAbi,
      functionName: 'stakeOf',
      args: [address],
      ...(blockNumber === undefined ? {} : {blockNumber}),
    })
    return {free, locked, unbonding, releaseAt: BigInt(releaseAt)}
  } catch (error) {
    throw toProtocolError('stakeOf', error)
  }
}

export type RequiredStakeParameters = {role: RoleName}

/** Wei per task (a whistleblower: per challenge). */
export type RequiredStakeReturnType = bigint

export type RequiredStakeErrorType = ContractRevertError | ChainError

/**
 * The stake the market locks per task for a role (a whistleblower's: its deposit per challenge), from ProtocolConfig.
 *
 * @throws {@link ChainError} when the node fails, {@link ContractRevertError} when the read reverts
 */
export async function requiredStake(connection: Pick<SignedConnection, 'publicClient' | 'contracts'>, {role}: RequiredStakeParameters): Promise<RequiredStakeReturnType> {
  const params = await getProtocolParams(connection)
  return role === 'solver' ? params.solverStake : role === 'verifier' ? params.verifierStake : params.challengeDeposit
}

export type EnsureRegisteredParameters = {
  role: RoleName
  /** How many tasks (a whistleblower: challenge deposits) the free stake must cover; default 1. */
  tasks?: number | undefined
}

/** The registering or staking transaction, or undefined when the signer already had the role and the stake. */
export type EnsureRegisteredReturnType = TransactionResult | undefined

export type EnsureRegisteredErrorType = TransactionErrorType

/**
 * Registers the signer for `role` and tops its free stake up to `tasks` times the per-task stake, so an
 * actor can start playing with one command (a whistleblower: `tasks` challenge deposits). Returns the transaction
 * when one was needed.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export async function ensureRegistered(connection: SignedConnection, {role, tasks = 1}: EnsureRegisteredParameters): Promise<EnsureRegisteredReturnType> {
  const address = connection.account.address
  const [roles, stake, perTask] = await Promise.all([
    connection.publicClient.readContract({address: connection.contracts.registry, abi: roleRegistryAbi, functionName: 'rolesOf', args: [address]}),
    getStake(connection, {address}),
    requiredStake(connection, {role}),
  ])
  const hasRole = (Number(roles) & Role[role]) !== 0
  const wanted = perTask * BigInt(tasks)
  const topUp = stake.free >= wanted ? 0n : wanted - stake.free
  if (hasRole && topUp === 0n) return undefined
  return sendContractTransaction(connection, {
    address: connection.contracts.registry,
    abi: roleRegistryAbi,
    functionName: 'register',
    args: [Role[role]],
    value: topUp,
  })
}
