import {randomBytes} from 'node:crypto'

import {concat, type Hex, keccak256, toHex} from 'viem'

import {ensureRegistered} from '../../protocol/ensureRegistered.js'
import {isRevert} from '../../protocol/errors.js'
import {listTasks} from '../../protocol/listTasks.js'
import {claimTask, secretHashOf} from '../../protocol/marketActions.js'
import type {Task} from '../../protocol/types.js'
import {chainTime} from '../chainTime.js'
import {writeSolverState} from '../solverState.js'
import type {SolverRun} from './types.js'

/** Claim reverts that mean "not now" (another solver was first, or the price or the book moved): try again later. */
const notNowErrors = ['InvalidStatus', 'DeadlinePassed', 'NotListed', 'AtCapacity', 'AskAbovePrice', 'PriceAboveMax', 'ParentNotSettled'] as const
/** Claim reverts that hold for good for this solver and task. */
const neverErrors = ['SolverRejected', 'EscrowExhausted', 'ParentStoppedEarly'] as const

/**
 * Claims an open task, committing to a fresh secret that is saved before the claim is sent. Returns false
 * when the claim lost a race (tried again later) or can never succeed (never again).
 */
export async function claimOpenTask(run: SolverRun, task: Task): Promise<boolean> {
  const {connection, me} = run
  await ensureRegistered(connection, {role: 'solver'})
  // The secret is on disk before the claim is sent: a crash right after the claim must not lose it.
  const secret = freshSecret(run.options.seed, task.id)
  const live = (await listTasks(connection)).filter((other) => other.solver === me && !['Settled', 'Expired', 'Submitted'].includes(other.status))
  await writeSolverState(connection.stateDir, me, {taskId: task.id, checkpoints: [], secret}, live.map((other) => other.id))
  try {
    const claim = await claimTask(connection, {taskId: task.id, secretHash: secretHashOf(secret)})
    run.emit({type: 'claimed', taskId: task.id, claimBlock: claim.claimBlock, gasUsed: claim.gasUsed, price: claim.price})
    return true
  } catch (error) {
    if (isRevert(error, ...notNowErrors, ...neverErrors)) {
      run.emit({type: 'lost-race', taskId: task.id, reason: error.errorName})
      if ((neverErrors as readonly string[]).includes(error.errorName)) run.memory.never.add(task.id)
      else run.memory.lostRaces.set(task.id, (await chainTime(connection)).number)
      return false
    }
    throw error
  }
}

/**
 * A fresh 32-byte secret per claim: it and the block after the claim decide the forced-error coin. A seeded
 * solver derives it from its seed and the task, so a replayed run commits the same secrets.
 */
function freshSecret(seed: Hex | undefined, taskId: bigint): Hex {
  return seed === undefined ? toHex(randomBytes(32)) : keccak256(concat([seed, toHex(taskId, {size: 32})]))
}
