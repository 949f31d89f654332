import {zeroHash} from 'viem'

import {isRevert} from '../../protocol/errors.js'
import {fixSeed} from '../../protocol/marketActions.js'
import type {Task} from '../../protocol/types.js'
import type {ChainNow} from '../runRoleLoop.js'
import {SEED_FIX_AFTER_BLOCKS, type SolverRun} from './types.js'
import {warnOnce} from './warnOnce.js'

/**
 * A training that outlasts the EVM's 256-block memory of blockhash(claimBlock + 1) could no longer commit: once
 * SEED_FIX_AFTER_BLOCKS have passed, the seed is recorded on chain (one small transaction; short trainings
 * commit before and never pay it).
 */
export async function fixSeedIfAging(run: SolverRun, task: Task, now: ChainNow): Promise<void> {
  if (task.seed !== zeroHash || now.number < task.claimBlock + SEED_FIX_AFTER_BLOCKS) return
  try {
    const transaction = await fixSeed(run.connection, {taskId: task.id})
    run.emit({type: 'seed-fixed', taskId: task.id, block: now.number, gasUsed: transaction.gasUsed})
  } catch (error) {
    if (!isRevert(error, 'SeedAlreadyFixed', 'InvalidStatus', 'RandomnessExpired')) throw error
    if (error.errorName === 'RandomnessExpired') warnOnce(run, task.id, 'the forced-error seed was forgotten before it was recorded: this claim can no longer commit and will time out')
  }
}
