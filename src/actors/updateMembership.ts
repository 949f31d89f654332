import {roleRegistryAbi, taskMarketAbi} from '../chain/generated/index.js'
import {type WhistleblowerDecision, whistleblowerDecision} from '../economics/whistleblowerRule.js'
import type {SignedConnection} from '../protocol/connect.js'
import {toProtocolError} from '../protocol/errors.js'
import {getProtocolParams} from '../protocol/getProtocolParams.js'
import {sendContractTransaction} from '../protocol/sendContractTransaction.js'

export type MembershipEvent =
  /** It joined (or left) the active whistleblowers; `active` is the count after the change. */
  | {type: 'joined'; active: bigint}
  | {type: 'left'; active: bigint}
  /**
   * Its join-or-leave decision (the litepaper's payout rule) with the inputs it read: emitted when the action or
   * an input changes, so the log shows why it joined, stayed or left.
   */
  | ({type: 'decision'; active: bigint; isActive: boolean; jackpot: bigint; jackpotCap: bigint; forcedErrorBps: number; checkCost: bigint; maxActive: bigint} & WhistleblowerDecision)

/** What a whistleblower keeps between ticks to decide its membership. */
export type Membership = {
  connection: SignedConnection
  /** Its cost to re-check one task (wei) and the most active whistleblowers it shares the work with. */
  checkCost: bigint
  maxActive: bigint
  /** The last decision and inputs it logged (a decision event is emitted only when they change). */
  lastDecision: string
  emit: (event: MembershipEvent) => void
}

/**
 * Joins or leaves the active whistleblowers by the litepaper's payout rule (src/economics/whistleblowerRule.ts):
 * reads the active count, its own flag, the jackpot and the protocol's cap and forced-error rate, logs the
 * decision with those inputs when it changed, and acts on it. Returns whether it is active now.
 */
export async function updateMembership(membership: Membership): Promise<boolean> {
  const {connection, emit} = membership
  const me = connection.account.address
  const [active, isActive, jackpot, params] = await Promise.all([
    readRegistry<bigint>(connection, 'activeWhistleblowers', []),
    readRegistry<boolean>(connection, 'isWhistleblowing', [me]),
    readJackpot(connection),
    getProtocolParams(connection),
  ])
  const inputs = {active, isActive, jackpot, jackpotCap: params.jackpotCap, forcedErrorBps: params.forcedErrorBps, checkCost: membership.checkCost, maxActive: membership.maxActive}
  const decision = whistleblowerDecision(inputs)
  const key = JSON.stringify({...inputs, action: decision.action}, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))
  if (key !== membership.lastDecision) {
    membership.lastDecision = key
    emit({type: 'decision', ...inputs, ...decision})
  }
  if (decision.action === 'join') {
    emit({type: 'joined', active: await setWhistleblowing(connection, true)})
    return true
  }
  if (decision.action === 'leave') {
    emit({type: 'left', active: await setWhistleblowing(connection, false)})
    return false
  }
  return isActive
}

async function setWhistleblowing(connection: SignedConnection, active: boolean): Promise<bigint> {
  await sendContractTransaction(connection, {address: connection.contracts.registry, abi: roleRegistryAbi, functionName: 'setWhistleblowing', args: [active]})
  return readRegistry<bigint>(connection, 'activeWhistleblowers', [])
}

async function readJackpot(connection: SignedConnection): Promise<bigint> {
  try {
    return await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'jackpot'})
  } catch (error) {
    throw toProtocolError('jackpot', error)
  }
}

async function readRegistry<T>(connection: SignedConnection, functionName: 'activeWhistleblowers' | 'isWhistleblowing', args: readonly unknown[]): Promise<T> {
  try {
    return (await connection.publicClient.readContract({address: connection.contracts.registry, abi: roleRegistryAbi, functionName, args} as never)) as T
  } catch (error) {
    throw toProtocolError(functionName, error)
  }
}
