import {ContractRevertError} from '../../protocol/errors.js'
import {revealForcedError} from '../../protocol/marketActions.js'
import type {Task} from '../../protocol/types.js'
import type {ChainNow} from '../runRoleLoop.js'
import {type SolverState, writeSolverState} from '../solverState.js'
import type {SolverRun} from './types.js'
import {warnOnce} from './warnOnce.js'

/**
 * In the reveal window (blocks openEndBlock + 1 .. revealEndBlock, after the whistleblowers opened their
 * challenges): shows the secret and the honest proof, whatever the verdict. A rejected forced error left
 * unrevealed would be slashed as a cheat.
 */
export async function revealOwnForcedError(run: SolverRun, task: Task, state: SolverState, now: ChainNow): Promise<void> {
  const opens = task.openEndBlock + 1n
  const closes = task.revealEndBlock
  // The transaction lands in a later block than the one read: wait until the simulation is in the window too.
  if (now.number < opens || now.number + 1n > closes) {
    if (now.number + 1n > closes) warnOnce(run, task.id, `reveal window closed at block ${closes} before the forced error could be revealed`)
    return
  }
  if (!state.secret || !state.honest) return warnOnce(run, task.id, 'forced error without a saved secret or honest proof: it cannot be revealed')
  try {
    const transaction = await revealForcedError(run.connection, {taskId: task.id, secret: state.secret, seed: task.seed, honestRoot: state.honest.proofRoot, honestManifestHash: state.honest.manifestHash})
    await writeSolverState(run.connection.stateDir, run.me, {...state, revealed: true})
    run.emit({type: 'revealed', taskId: task.id, honestRoot: state.honest.proofRoot, gasUsed: transaction.gasUsed})
  } catch (error) {
    if (!(error instanceof ContractRevertError)) throw error
    warnOnce(run, task.id, `revealForcedError: ${error.shortMessage} (retrying while the window is open)`)
  }
}
