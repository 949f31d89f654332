import assert from 'node:assert/strict'
import * as tf from '@tensorflow/tfjs'
import {selectBackend} from '../../ml/backend/selectBackend.js'
import {requireWebgpu} from '../../ml/backend/webgpu/requireWebgpu.js'
import {initialCheckpoint} from '../../ml/checkpoint/initialCheckpoint.js'
import type {RuntimeId} from '../../ml/backend/runtimeId.js'
import type {Checkpoint} from '../../ml/checkpoint/types.js'
import {loadJobSpec} from '../../ml/spec/loadJobSpec.js'
import type {JobSpec} from '../../ml/spec/schema.js'
import {trainSegment} from '../../ml/train/trainSegment.js'
import {parameterDistances} from '../distances/parameterDistances.js'
import type {Thresholds} from '../distances/thresholds.js'
import {judgeTolerance} from '../replaySegment.js'

// The CNN's whole-vector thresholds profiled for webgpu on an H200 against wasm (docs/verification.md), with the
// whole vector's l∞ limit on every tensor so that adam's moments are checked too.
const thresholds: Thresholds = {l1: 4.07e-2, l2: 1.22e-3, linf: 8.98e-4, cosine: 1.36e-8, update: 2.64e-4, eachTensor: {linf: 8.98e-4}}

describe('judgeTolerance: a segment that amplifies rounding (the CNN trained on webgpu, judged on wasm)', function () {
  // A guard against a hang, not a speed check: the CNN on lavapipe and its replay on tfjs's cpu backend (the spread)
  // took over 120 s with three other test files beside it on a slow 2-core machine (2026-12-07).
  this.timeout(600_000)
  // Held-out seed 10 of the GPU bench's CNN plan (200 steps, a checkpoint every 50): in its first segment the eighth
  // conv bias crosses zero at step 27, on opposite sides on webgpu (and cpu) and on wasm, and the ReLU on MNIST's
  // blank background turns that into l2 1.08e-2 at step 50 (docs/verification.md, "Segments that amplify rounding").
  let spec: JobSpec
  let start: Checkpoint
  let committed: Checkpoint
  let replayed: Checkpoint
  let wasm: RuntimeId

  before(async function () {
    await requireWebgpu(this)
    const loaded = await loadJobSpec('fixtures/jobs/mnist-cnn.yaml')
    spec = {...loaded, training: {...loaded.training, steps: 200, stopAt: undefined, seed: loaded.training.seed + 10}, proof: {checkpointInterval: 50}}
    start = initialCheckpoint(spec)
    await selectBackend('webgpu')
    committed = await trainSegment(spec, start, 50)
    wasm = await selectBackend('wasm')
    replayed = await trainSegment(spec, start, 50)
  })

  it('is beyond the profiled thresholds and within twice its spread to cpu: the thresholds alone would reject the honest solver', async () => {
    const distances = parameterDistances(replayed, committed, start)
    assert.ok(distances.whole.l2 > 5 * (thresholds.l2 as number), `whole l2 ${distances.whole.l2}`)
    const off = {...spec, verification: {...spec.verification, spread: {backends: [], margin: 2}}}
    const alone = await judgeTolerance({spec: off, start, replayed, runtime: wasm, committed, distances, limits: thresholds})
    assert.ok(alone.violations.some((v) => v.startsWith('whole l2')), alone.violations.join('; '))
    assert.equal(alone.spread, undefined)

    const judged = await judgeTolerance({spec, start, replayed, runtime: wasm, committed, distances, limits: thresholds})
    assert.deepEqual(judged.violations, [])
    assert.deepEqual(judged.spread?.runtimes.map((r) => r.split(' ')[0]), ['cpu'])
    const spreadL2 = judged.spread?.distances.whole.l2 ?? 0
    assert.ok(spreadL2 > 5 * (thresholds.l2 as number) && distances.whole.l2 <= 2 * spreadL2, `spread l2 ${spreadL2}, committed ${distances.whole.l2}`)
    assert.deepEqual(judged.beyondThresholds, alone.violations)
    assert.equal(tf.getBackend(), 'wasm', "the judge's backend is selected again")
  })

  it('still rejects a cheat from the same start: the segment trained at 0.9 times the learning rate', async () => {
    const slower = {...spec.training.optimizer, learningRate: spec.training.optimizer.learningRate * 0.9}
    await selectBackend('webgpu')
    const cheat = await trainSegment({...spec, training: {...spec.training, optimizer: slower}}, start, 50)
    await selectBackend('wasm')
    const distances = parameterDistances(replayed, cheat, start)
    const judged = await judgeTolerance({spec, start, replayed, runtime: wasm, committed: cheat, distances, limits: thresholds})
    assert.ok(judged.spread !== undefined, 'the spread was measured')
    assert.ok(distances.whole.l2 > 4 * judged.spread.distances.whole.l2, `cheat l2 ${distances.whole.l2}, spread ${judged.spread.distances.whole.l2}`)
    assert.ok(judged.violations.some((v) => v.startsWith('whole l2')), judged.violations.join('; '))
  })
})
