import type {Hex} from 'viem'

import type {Connection} from './connect.js'
import {decodeTaskState} from './decodeTaskState.js'
import {type ChainError, type ContractRevertError, toProtocolError, UnexpectedChainValueError} from './errors.js'
import {readMarket} from './readMarket.js'
import {readUnstoredFields} from './readUnstoredFields.js'
import {type Task, taskStatuses} from './types.js'

export type GetTaskParameters = {
  taskId: bigint
  /**
   * The task's current state, where the caller has read it already (listTasks reads every task's at once); read
   * from the chain otherwise.
   */
  state?: readonly Hex[] | undefined
}

export type GetTaskReturnType = Task

export type GetTaskErrorType = ContractRevertError | ChainError | UnexpectedChainValueError

/**
 * One task of the TaskMarket as TypeScript reads it: bigints for block numbers and amounts, names for its status;
 * the fields the contract does not store (spec, manifest and report hashes, randomness, distance, and after the
 * commit the forced-error coin's secret hash, seed and seal) read where the chain fixed them (readUnstoredFields).
 *
 * @throws {@link ChainError} when the node fails, {@link ContractRevertError} when the read reverts
 * @throws {@link UnexpectedChainValueError} when the task's status is one this build does not know
 */
export async function getTask(connection: Pick<Connection, 'publicClient' | 'contracts'> & Partial<Pick<Connection, 'deployBlock'>>, {taskId: id, state}: GetTaskParameters): Promise<GetTaskReturnType> {
  try {
    const raw = state ? await decodeTaskState(connection, {taskId: id, state}) : await readMarket(connection, 'getTask', [id])
    const status = taskStatuses[Number(raw.status)]
    if (!status) throw new UnexpectedChainValueError(`getTask failed: unknown task status ${raw.status}`)
    const unstored = await readUnstoredFields(connection, {
      taskId: id,
      attempts: Number(raw.attempts),
      forcedRevealed: raw.forcedRevealed,
      verifier: raw.verifier,
      commitBlock: BigInt(raw.commitBlock),
      verdictBlock: BigInt(raw.verdictBlock),
      secretHash: raw.secretHash,
      seed: raw.seed,
    })
    return {
      id,
      submitter: raw.submitter,
      solver: raw.solver,
      verifier: raw.verifier,
      status,
      accepted: raw.accepted,
      attempts: Number(raw.attempts),
      specHash: unstored.specHash,
      escrow: raw.escrow,
      workUnits: BigInt(raw.workUnits),
      maxSteps: BigInt(raw.maxSteps),
      verifierFeeBps: Number(raw.verifierFeeBps),
      maxPrice: raw.maxPrice,
      price: raw.price,
      parentId: raw.parentId,
      solverReward: raw.solverReward,
      verifierReward: raw.verifierReward,
      claimTimeout: BigInt(raw.claimTimeout),
      trainingTimeout: BigInt(raw.trainingTimeout),
      verificationTimeout: BigInt(raw.verificationTimeout),
      deadline: BigInt(raw.deadline),
      submittedAt: BigInt(raw.submittedAt),
      commitBlock: BigInt(raw.commitBlock),
      checkpointCount: Number(raw.checkpointCount),
      proofRoot: raw.proofRoot,
      manifestHash: unstored.manifestHash,
      randomness: unstored.randomness,
      reportHash: unstored.reportHash,
      distance: unstored.distance,
      secretHash: unstored.secretHash,
      seed: unstored.seed,
      sealedHonest: unstored.sealedHonest,
      claimBlock: BigInt(raw.claimBlock),
      checkpointInterval: BigInt(raw.checkpointInterval),
      totalSteps: BigInt(raw.totalSteps),
      forcedErrorBps: Number(raw.forcedErrorBps),
      forcedRevealed: raw.forcedRevealed,
      verdictBlock: BigInt(raw.verdictBlock),
      challengeEndBlock: BigInt(raw.challengeEndBlock),
      openEndBlock: BigInt(raw.openEndBlock),
      revealEndBlock: BigInt(raw.revealEndBlock),
      rejectSegment: Number(raw.rejectSegment),
      disputeFiled: raw.disputeFiled,
      nextChallenge: Number(raw.nextChallenge),
      rejectReplayHash: raw.rejectReplayHash,
      rejectStartHash: raw.rejectStartHash,
      rejectEndHash: raw.rejectEndHash,
      solverLocked: raw.solverLocked,
      verifierLocked: raw.verifierLocked,
      activeDispute: raw.activeDispute,
    }
  } catch (error) {
    throw toProtocolError('getTask', error)
  }
}
