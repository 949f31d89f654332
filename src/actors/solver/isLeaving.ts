import type {SolverRun} from './types.js'

/** The supply shock: a solver told to leave after `leaveAfterSeconds` has reached that time. */
export function isLeaving(run: Pick<SolverRun, 'options' | 'started'>): boolean {
  const after = run.options.leaveAfterSeconds
  return after !== undefined && performance.now() - run.started >= after * 1000
}
