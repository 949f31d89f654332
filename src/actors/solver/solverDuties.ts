import type {Task} from '../../protocol/types.js'
import type {ChainNow} from '../runRoleLoop.js'
import {readSolverState} from '../solverState.js'
import {disputeIfWronged} from './disputeIfWronged.js'
import {fixSeedIfAging} from './fixSeedIfAging.js'
import {manageOffer} from './manageOffer.js'
import {revealOwnForcedError} from './revealOwnForcedError.js'
import type {SolverRun} from './types.js'

/**
 * Every poll (and at checkpoints while training): the offer, the seed of an aging claim, reveals of its forced
 * errors, disputes of wrong rejections, and its dispute rounds.
 */
export async function solverDuties(run: SolverRun, tasks: Task[], now: ChainNow): Promise<void> {
  const {connection, me} = run
  run.memory.lastDuties = performance.now()
  await manageOffer(run, now)
  for (const task of tasks) {
    if (task.solver === me && task.status === 'Claimed') await fixSeedIfAging(run, task, now)
    if (task.solver !== me || task.status !== 'Verified') continue
    const state = await readSolverState(connection.stateDir, me, task.id)
    if (state?.forced && !state.revealed && !task.forcedRevealed && state.committed?.proofRoot === task.proofRoot) await revealOwnForcedError(run, task, state, now)
    else if (!task.accepted) await disputeIfWronged(run, task, state, now)
  }
  await run.agent.poll()
}
