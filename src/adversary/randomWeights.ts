import {selectBackend} from '../ml/backend/selectBackend.js'
import {modelWeights} from '../ml/model/initialWeights.js'
import {optimizerStateType} from '../ml/spec/schema.js'
import {checkpointSchedule} from '../ml/train/checkpointSchedule.js'
import {CommittedCheckpoints, throwIfAborted, type StrategyContext, type StrategyOutcome} from './context.js'
import {cheaterStream, stateAt, uniformTensor} from './fakeState.js'

/**
 * random-weights: no training. Every checkpoint, step 0 included, is drawn from the cheater's stream:
 * kernels glorot-uniform like real initial weights, biases and adam moments small uniform values (zero
 * moments at step 0), headers exact for their step. Compute fraction 0; every segment is faked.
 */
export async function randomWeights(context: StrategyContext): Promise<StrategyOutcome> {
  const {spec} = context
  const runtime = await selectBackend(context.backend, {wasmVariant: context.wasmVariant})
  const schedule = checkpointSchedule(spec)
  const infos = modelWeights(spec.model)
  const committed = new CommittedCheckpoints(context)
  for (const step of schedule) {
    throwIfAborted(context.signal, step)
    const stream = cheaterStream('random-weights', context.seed, `step=${step}`)
    const weights = infos.map((w) => {
      const like = {name: w.name, shape: [...w.shape], values: new Float32Array(w.shape.reduce((a, b) => a * b, 1))}
      const limit = w.role === 'kernel' ? Math.sqrt(6 / (w.fanIn + w.fanOut)) : 0.01
      return uniformTensor(like, w.name, stream, -limit, limit)
    })
    const moments = (prefix: 'm' | 'v', low: number, high: number) =>
      optimizerStateType(spec) === 'adam' || (prefix === 'm' && optimizerStateType(spec) === 'momentum')
        ? weights.map((w) => uniformTensor(w, `${prefix}/${w.name}`, stream, step === 0 ? 0 : low, step === 0 ? 0 : high))
        : []
    await committed.commit(stateAt(spec, step, weights, moments('m', -1e-3, 1e-3), moments('v', 0, 1e-6)))
  }
  return {
    checkpoints: committed.refs,
    runtime,
    finalLoss: Number.NaN,
    trainedSteps: 0,
    fakedSegments: schedule.slice(1).map((_, i) => i),
  }
}
