/** The loss a solver reported at each checkpoint of one task, and the last loss it reported (the live tail). */
export type LiveCurve = {solver: string; taskId: string; checkpoints: {step: number; loss: number}[]; lastLoss: number | undefined; step: number}

/** Curves kept: the tasks being trained and the few before them. */
const curveLimit = 12

/**
 * Folds a solver's `progress` (its batch loss at every step) and `checkpoint` events into the curve of the
 * task it trains: a point per checkpoint, at the loss of the step it was taken at. A checkpoint before any
 * step (the task's start) has no loss yet and adds no point.
 */
export function applyTrainingEvent(curves: LiveCurve[], solver: string, event: Record<string, unknown>): void {
  if (event.type !== 'progress' && event.type !== 'checkpoint') return
  const taskId = String(event.taskId)
  let curve = curves.find((candidate) => candidate.solver === solver && candidate.taskId === taskId)
  if (!curve) {
    curve = {solver, taskId, checkpoints: [], lastLoss: undefined, step: 0}
    curves.push(curve)
    if (curves.length > curveLimit) curves.splice(0, curves.length - curveLimit)
  }
  const step = Number(event.step)
  if (event.type === 'progress') {
    const loss = Number(event.loss)
    if (Number.isFinite(loss)) curve.lastLoss = loss
    curve.step = step
  } else if (curve.lastLoss !== undefined && curve.step === step && !curve.checkpoints.some((point) => point.step === step)) {
    curve.checkpoints.push({step, loss: curve.lastLoss})
  }
}
