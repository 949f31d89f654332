import type {Address, Hex} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {type DisputeOutcome, disputeOutcomes} from './disputeTypes.js'
import {type ChainError, type ContractRevertError, toProtocolError} from './errors.js'

/** Mirrors `TaskMarket.ChallengeState`. */
export const challengeStates = ['Committed', 'Queued', 'Playing', 'Done'] as const
export type ChallengeState = (typeof challengeStates)[number]

/** One whistleblower challenge of a task's accepted verdict (`TaskMarket.Challenge`), in queue order. */
export type Challenge = {
  index: number
  whistleblower: Address
  /** keccak256(abi.encode(taskId, whistleblower, segment, claimedEndHash, salt)); the claim fields are 0 until opened. */
  commitment: Hex
  segment: number
  state: ChallengeState
  outcome: DisputeOutcome
  claimedEndHash: Hex
  startHash: Hex
  endHash: Hex
  deposit: bigint
  /** The PinpointGame dispute it is played in (0 until settle opens it). */
  disputeId: bigint
}

export type GetChallengesParameters = {taskId: bigint}

export type GetChallengesReturnType = Challenge[]

export type GetChallengesErrorType = ContractRevertError | ChainError

/**
 * The challenges committed on a task's current attempt, in commit order (a reopening clears them).
 *
 * @throws {@link ChainError} when the node fails, {@link ContractRevertError} when the read reverts
 */
export async function getChallenges(connection: Pick<Connection, 'publicClient' | 'contracts'>, {taskId}: GetChallengesParameters): Promise<GetChallengesReturnType> {
  try {
    const raw = await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'challengesOf', args: [taskId]})
    return raw.map((challenge, index) => ({
      index,
      whistleblower: challenge.whistleblower,
      commitment: challenge.commitment,
      segment: Number(challenge.segment),
      state: challengeStates[Number(challenge.state)] ?? 'Committed',
      outcome: disputeOutcomes[Number(challenge.outcome)] ?? 'None',
      claimedEndHash: challenge.claimedEndHash,
      startHash: challenge.startHash,
      endHash: challenge.endHash,
      deposit: challenge.deposit,
      disputeId: challenge.disputeId,
    }))
  } catch (error) {
    throw toProtocolError('challengesOf', error)
  }
}
