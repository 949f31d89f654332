import type {Hex} from 'viem'

import {pinpointGameAbi} from '../chain/generated/index.js'
import {InvalidInputError} from '../errors/base.js'
import type {Connection} from './connect.js'
import {
  type Committee,
  committeeQuestions,
  type Dispute,
  disputeOutcomes,
  disputePhases,
  type TraceHeader,
  voteNames,
} from './disputeTypes.js'
import {type ChainError, type ContractRevertError, isRevert, toProtocolError, UnexpectedChainValueError} from './errors.js'
import {gameAddress} from './gameAddress.js'

type Reader = Pick<Connection, 'publicClient' | 'contracts'>

export type GetDisputeParameters = {disputeId: bigint}

export type GetDisputeReturnType = Dispute

export type GetDisputeErrorType = InvalidInputError | ContractRevertError | ChainError | UnexpectedChainValueError

/**
 * One dispute of the PinpointGame (ids from 1).
 *
 * @throws {@link InvalidInputError} (exit 2) for an id never opened
 * @throws {@link ChainError} when the node fails, {@link ContractRevertError} when the read reverts
 * @throws {@link UnexpectedChainValueError} when a phase, outcome or question is one this build does not know
 */
export async function getDispute(connection: Reader, {disputeId: id}: GetDisputeParameters): Promise<GetDisputeReturnType> {
  const address = await gameAddress(connection)
  let raw
  try {
    raw = await connection.publicClient.readContract({address, abi: pinpointGameAbi, functionName: 'getDispute', args: [id]})
  } catch (error) {
    const failure = toProtocolError('getDispute', error)
    if (isRevert(failure, 'DisputeNotFound')) throw new InvalidInputError(`id: no dispute ${id} on the game ${address}`)
    throw failure
  }
  return {
    id,
    taskId: raw.taskId,
    prover: raw.prover,
    challenger: raw.challenger,
    excluded: raw.excluded,
    openerIsProver: raw.openerIsProver,
    phase: named(disputePhases, raw.phase, 'phase'),
    outcome: named(disputeOutcomes, raw.outcome, 'outcome'),
    question: named(committeeQuestions, raw.question, 'question'),
    proverPosted: raw.proverPosted,
    challengerPosted: raw.challengerPosted,
    rounds: Number(raw.rounds),
    element: Number(raw.element),
    deadline: BigInt(raw.deadline),
    roundTimeoutBlocks: BigInt(raw.roundTimeoutBlocks),
    committeeTimeoutBlocks: BigInt(raw.committeeTimeoutBlocks),
    startStep: BigInt(raw.startStep),
    endStep: BigInt(raw.endStep),
    lo: BigInt(raw.lo),
    hi: BigInt(raw.hi),
    step: BigInt(raw.step),
    drawAnchor: BigInt(raw.drawAnchor),
    loHash: raw.loHash,
    proverHi: raw.proverHi,
    challengerHi: raw.challengerHi,
    stateHash: raw.stateHash,
    proverNext: raw.proverNext,
    challengerNext: raw.challengerNext,
    proverPost: raw.proverPost,
    challengerPost: raw.challengerPost,
    proverHeader: header(raw.proverHeader),
    challengerHeader: header(raw.challengerHeader),
  }
}

export type CurrentIndexParameters = {disputeId: bigint}

export type CurrentIndexReturnType = bigint

export type CurrentIndexErrorType = ContractRevertError | ChainError

/**
 * What the current round is about: the step mid (Steps), the disputed step (TraceHeader), the element mid (Operators), the disputed element (Arbitration, Committee).
 *
 * @throws {@link ChainError} when the node fails, {@link ContractRevertError} when the read reverts
 */
export async function currentIndex(connection: Reader, {disputeId: id}: CurrentIndexParameters): Promise<CurrentIndexReturnType> {
  try {
    return BigInt(await connection.publicClient.readContract({address: await gameAddress(connection), abi: pinpointGameAbi, functionName: 'currentIndex', args: [id]}))
  } catch (error) {
    throw toProtocolError('currentIndex', error)
  }
}

export type CommitteeOfParameters = {disputeId: bigint}

export type CommitteeOfReturnType = Committee

export type CommitteeOfErrorType = ContractRevertError | ChainError | UnexpectedChainValueError

/**
 * The drawn committee (empty before a draw) and each member's vote.
 *
 * @throws {@link ChainError} when the node fails, {@link ContractRevertError} when the read reverts
 * @throws {@link UnexpectedChainValueError} when a vote is one this build does not know
 */
export async function committeeOf(connection: Reader, {disputeId: id}: CommitteeOfParameters): Promise<CommitteeOfReturnType> {
  try {
    const [members, votes] = await connection.publicClient.readContract({address: await gameAddress(connection), abi: pinpointGameAbi, functionName: 'committeeOf', args: [id]})
    return {members: [...members], votes: votes.map((vote) => named(voteNames, vote, 'vote'))}
  } catch (error) {
    throw toProtocolError('committeeOf', error)
  }
}

/** How many disputes the game has opened (ids are 1..count). */
export async function disputeCount(connection: Reader): Promise<bigint> {
  try {
    return await connection.publicClient.readContract({address: await gameAddress(connection), abi: pinpointGameAbi, functionName: 'disputeCount'})
  } catch (error) {
    throw toProtocolError('disputeCount', error)
  }
}

export type DisputesOfTaskParameters = {taskId: bigint}

export type DisputesOfTaskReturnType = bigint[]

export type DisputesOfTaskErrorType = ContractRevertError | ChainError

/**
 * The ids of every dispute opened over a task, oldest first.
 *
 * @throws {@link ChainError} when the node fails, {@link ContractRevertError} when the read reverts
 */
export async function disputesOfTask(connection: Reader, {taskId}: DisputesOfTaskParameters): Promise<DisputesOfTaskReturnType> {
  try {
    return [...(await connection.publicClient.readContract({address: await gameAddress(connection), abi: pinpointGameAbi, functionName: 'disputesOfTask', args: [taskId]}))]
  } catch (error) {
    throw toProtocolError('disputesOfTask', error)
  }
}

function header(raw: {opCount: number; graphHash: Hex; finalCommitment: Hex}): TraceHeader {
  return {opCount: Number(raw.opCount), graphHash: raw.graphHash, finalCommitment: raw.finalCommitment}
}

function named<const T extends readonly string[]>(names: T, value: number | bigint, what: string): T[number] {
  const name = names[Number(value)]
  if (name === undefined) throw new UnexpectedChainValueError(`unknown dispute ${what} ${value}`)
  return name
}

