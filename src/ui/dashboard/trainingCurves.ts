/** The loss a solver reported at each checkpoint of one task, and the last loss it reported (the live tail). */
export type LiveCurve = {solver: string; taskId: string; checkpoints: {step: number; loss: number}[]; lastLoss: number | undefined; step: number}

/** Curves kept: the tasks being trained and the few before them. */
const curveLimit = 12

/**
 * Folds a solver's `progress` (its batch loss at every step) and `checkpoint` events into the curve of the
 * task it trains: a point per checkpoint, at the loss of the step it was taken at (the event's `loss`, else the
 * last progress event's when it is at that step). A checkpoint before any step (the task's start) has no loss
 * and adds no point.
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
  } else if (!curve.checkpoints.some((point) => point.step === step)) {
    // A checkpoint is announced once stored, an interval after its step: its event carries that step's loss.
    const loss = Number.isFinite(event.loss) ? Number(event.loss) : curve.step === step ? curve.lastLoss : undefined
    if (loss !== undefined) curve.checkpoints.push({step, loss})
  }
}
