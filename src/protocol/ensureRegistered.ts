import {roleRegistryAbi} from '../chain/generated/index.js'
import type {SignedConnection} from './connect.js'
import {toProtocolError, type TransactionErrorType} from './errors.js'
import {getProtocolParams} from './getProtocolParams.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'
import {Role, type RoleName} from './types.js'

export type StakeInfo = {free: bigint; locked: bigint; unbonding: bigint; releaseAt: bigint}

export async function getStake(connection: Pick<SignedConnection, 'publicClient' | 'contracts'>, address: `0x${string}`, blockNumber?: bigint): Promise<StakeInfo> {
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

/** The stake the market locks per task for a role (a whistleblower's: its deposit per challenge), from ProtocolConfig. */
export async function requiredStake(connection: Pick<SignedConnection, 'publicClient' | 'contracts'>, role: RoleName): Promise<bigint> {
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
    getStake(connection, address),
    requiredStake(connection, role),
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
