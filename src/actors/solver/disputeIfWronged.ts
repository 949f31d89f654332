import {disputeTaskRejection} from '../../protocol/disputeActions.js'
import {ContractRevertError} from '../../protocol/errors.js'
import type {Task} from '../../protocol/types.js'
import type {ChainNow} from '../runRoleLoop.js'
import type {SolverState} from '../solverState.js'
import type {SolverRun} from './types.js'
import {warnOnce} from './warnOnce.js'

/**
 * A rejection is contested in the challenge window by a solver that believes its proof: an honest one, and
 * the test-only operator corruption (which defends its corrupted proof to the end); a staller disputes to
 * stall. A `defend` cheat knows it would lose the game and only answers challenges. A forced error is
 * never disputed: it is wrong on purpose, and the reveal clears it.
 */
export async function disputeIfWronged(run: SolverRun, task: Task, state: SolverState | undefined, now: ChainNow): Promise<void> {
  const standsBehind = run.stance === 'honest' || run.stance === 'staller' || run.options.corruption !== undefined
  if (!standsBehind || task.disputeFiled || now.number + 1n > task.challengeEndBlock) return
  // The proof it stands behind: the honest one of a forced error (on chain once revealed), else the one committed.
  const own = state?.forced ? state.honest : state?.committed
  if (own && own.proofRoot !== task.proofRoot) return
  try {
    const transaction = await disputeTaskRejection(run.connection, {task})
    run.emit({type: 'rejection-disputed', taskId: task.id, segment: task.rejectSegment, gasUsed: transaction.gasUsed})
  } catch (error) {
    if (!(error instanceof ContractRevertError)) throw error
    if (error.errorName !== 'DisputeAlreadyFiled') warnOnce(run, task.id, `disputeRejection: ${error.shortMessage}`)
  }
}
