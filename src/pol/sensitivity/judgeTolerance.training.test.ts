import assert from 'node:assert/strict'
import {selectBackend} from '../../ml/backend/selectBackend.js'
import {checkpointHash} from '../../ml/checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../../ml/checkpoint/encodeCheckpoint.js'
import {initialCheckpoint} from '../../ml/checkpoint/initialCheckpoint.js'
import type {Checkpoint} from '../../ml/checkpoint/types.js'
import {loadJobSpec} from '../../ml/spec/loadJobSpec.js'
import type {JobSpec} from '../../ml/spec/schema.js'
import {TrainingSession} from '../../ml/train/trainingSession.js'
import {parameterDistances} from '../distances/parameterDistances.js'
import type {Thresholds} from '../distances/thresholds.js'
import {judgeTolerance} from '../replaySegment.js'

async function train(spec: JobSpec, start: Checkpoint, endStep: number): Promise<Checkpoint> {
  const session = new TrainingSession(spec, {threads: 1})
  try {
    session.load(start)
    await session.run(endStep)
    return await session.snapshot()
  } finally {
    session.dispose()
  }
}

// The CNN's whole-vector thresholds profiled for webgpu on an H200 against wasm (docs/verification.md), with the
// whole vector's l∞ limit on every tensor so that adam's moments are checked too.
const thresholds: Thresholds = {l1: 4.07e-2, l2: 1.22e-3, linf: 8.98e-4, cosine: 1.36e-8, update: 2.64e-4, eachTensor: {linf: 8.98e-4}}

describe('judgeTolerance: a segment that amplifies rounding (the CNN, cpu-trained, judged on wasm)', () => {
  // Held-out seed 10 of the GPU bench's CNN plan (200 steps, a checkpoint every 50): in its first segment the eighth
  // conv bias crosses zero at step 27, on opposite sides on cpu (and webgpu) and on wasm, and the ReLU on MNIST's
  // blank background turns that into l2 1.08e-2 at step 50 (docs/verification.md, "Segments that amplify rounding").
  let spec: JobSpec
  let start: Checkpoint
  let startHash: `0x${string}`
  let committed: Checkpoint
  let replayed: Checkpoint

  before(async () => {
    const loaded = await loadJobSpec('fixtures/jobs/mnist-cnn.yaml')
    spec = {...loaded, training: {...loaded.training, steps: 200, stopAt: undefined, seed: loaded.training.seed + 10}, proof: {checkpointInterval: 50}}
    start = initialCheckpoint(spec)
    startHash = checkpointHash(encodeCheckpoint(start))
    await selectBackend('cpu')
    committed = await train(spec, start, 50)
    await selectBackend('wasm')
    replayed = await train(spec, start, 50)
  })

  it('is beyond the profiled thresholds, and within its own honest spread: the thresholds alone would reject the honest solver', async () => {
    const distances = parameterDistances(replayed, committed, start)
    assert.ok(distances.whole.l2 > 5 * (thresholds.l2 as number), `whole l2 ${distances.whole.l2}`)
    const alone = await judgeTolerance({spec: {...spec, verification: {...spec.verification, sensitivity: {replays: 0, noise: 1e-3}}}, start, startHash, replayed, committed, distances, limits: thresholds})
    assert.ok(alone.violations.some((v) => v.startsWith('whole l2')), alone.violations.join('; '))
    assert.equal(alone.spread, undefined)

    const judged = await judgeTolerance({spec, start, startHash, replayed, committed, distances, limits: thresholds})
    assert.deepEqual(judged.violations, [])
    assert.equal(judged.spread?.replays, 8)
    assert.ok((judged.spread?.distances.whole.l2 ?? 0) >= distances.whole.l2, `spread l2 ${judged.spread?.distances.whole.l2}`)
    assert.deepEqual(judged.beyondThresholds, alone.violations)

    // seeded by the start's hash: another judge on this runtime measures the same spread, bit for bit
    const again = await judgeTolerance({spec, start, startHash, replayed, committed, distances, limits: thresholds})
    assert.deepEqual(again.spread, judged.spread)
  })

  it('still rejects a cheat from the same start: the segment trained at 0.9 times the learning rate', async () => {
    const slower = {...spec.training.optimizer, learningRate: spec.training.optimizer.learningRate * 0.9}
    await selectBackend('cpu')
    const cheat = await train({...spec, training: {...spec.training, optimizer: slower}}, start, 50)
    await selectBackend('wasm')
    const distances = parameterDistances(replayed, cheat, start)
    const judged = await judgeTolerance({spec, start, startHash, replayed, committed: cheat, distances, limits: thresholds})
    assert.ok(judged.spread !== undefined, 'the spread was measured')
    assert.ok(distances.whole.l2 > 4 * judged.spread.distances.whole.l2, `cheat l2 ${distances.whole.l2}, spread ${judged.spread.distances.whole.l2}`)
    assert.ok(judged.violations.some((v) => v.startsWith('whole l2')), judged.violations.join('; '))
  })
})
