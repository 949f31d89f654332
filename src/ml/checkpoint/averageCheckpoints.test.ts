import assert from 'node:assert/strict'

import {averageCheckpoints} from './averageCheckpoints.js'
import {checkpointHash} from './checkpointHash.js'
import {CheckpointFormatError} from './errors.js'
import {encodeCheckpoint} from './encodeCheckpoint.js'
import type {Checkpoint} from './types.js'

/** An adam checkpoint of one 2x2 weight `w` whose weights, m and v are `values` plus 0, 10 and 20. */
function adamCheckpoint(values: number[], step = 100, t = 100): Checkpoint {
  const tensor = (name: string, offset: number) => ({name, shape: [2, 2], values: Float32Array.from(values, (v) => v + offset)})
  return {step, weights: [tensor('w', 0)], optimizer: {type: 'adam', t, beta1Power: 0.9 ** t, beta2Power: 0.999 ** t, m: [tensor('m/w', 10)], v: [tensor('v/w', 20)]}}
}

describe('averageCheckpoints', () => {
  it('takes the element-wise mean of the weights and of adam moments, and keeps step, t and the powers', () => {
    const a = adamCheckpoint([1, 2, 3, 4])
    const b = adamCheckpoint([3, 6, -3, 0.5])
    const mean = averageCheckpoints([a, b])
    assert.deepEqual([...mean.weights[0]!.values], [2, 4, 0, 2.25])
    assert.equal(mean.optimizer.type, 'adam')
    if (mean.optimizer.type !== 'adam') return
    assert.deepEqual([...mean.optimizer.m[0]!.values], [12, 14, 10, 12.25])
    assert.deepEqual([...mean.optimizer.v[0]!.values], [22, 24, 20, 22.25])
    assert.equal(mean.step, 100)
    assert.equal(mean.optimizer.t, 100)
    assert.equal(mean.optimizer.beta1Power, a.optimizer.type === 'adam' ? a.optimizer.beta1Power : Number.NaN)
  })

  it('rounds to float32 once, from a float64 sum: not the float32 running sum', () => {
    // 1 + 2^-24 + 2^-24: a float32 running sum rounds each addition back to 1; float64 keeps them, and the mean
    // (1 + 2^-23) / 3 rounds to float32 differently from 1 / 3.
    const tiny = 2 ** -24
    const checkpoints = [1, tiny, tiny].map((v) => ({step: 0, weights: [{name: 'w', shape: [1], values: Float32Array.of(v)}], optimizer: {type: 'sgd'} as const}))
    const mean = averageCheckpoints(checkpoints)
    assert.equal(mean.weights[0]!.values[0], Math.fround((1 + 2 * tiny) / 3))
    assert.notEqual(mean.weights[0]!.values[0], Math.fround(Math.fround(Math.fround(1 + tiny) + tiny) / 3))
  })

  it('gives the same bytes every time, and a checkpoint averaged with itself is itself', () => {
    const shards = [adamCheckpoint([0.1, 0.2, 0.3, 0.4]), adamCheckpoint([0.7, -0.2, 1e-7, 3]), adamCheckpoint([5, 6, 7, 8])]
    const hashes = new Set([0, 1, 2].map(() => checkpointHash(encodeCheckpoint(averageCheckpoints(shards)))))
    assert.equal(hashes.size, 1)
    const one = shards[0]!
    assert.equal(checkpointHash(encodeCheckpoint(averageCheckpoints([one, one, one]))), checkpointHash(encodeCheckpoint(one)))
  })

  it('refuses checkpoints that are not of one round: another step, optimizer, adam t or tensor', () => {
    const a = adamCheckpoint([1, 2, 3, 4])
    const cases: [string, Checkpoint, RegExp][] = [
      ['step', adamCheckpoint([1, 2, 3, 4], 50), /checkpoint 1: expected step 100, got 50/],
      ['adam t', adamCheckpoint([1, 2, 3, 4], 100, 99), /checkpoint 1: expected adam's t 100, got 99/],
      ['optimizer', {step: 100, weights: a.weights, optimizer: {type: 'sgd'}}, /checkpoint 1: expected optimizer adam, got sgd/],
      ['tensor', {...a, weights: [{name: 'u', shape: [2, 2], values: new Float32Array(4)}]}, /checkpoint 1: tensor 0: expected w \[2, 2\], got u \[2, 2\]/],
    ]
    for (const [what, other, message] of cases)
      assert.throws(() => averageCheckpoints([a, other]), (error: unknown) => error instanceof CheckpointFormatError && message.test(error.shortMessage), what)
    assert.throws(() => averageCheckpoints([]), CheckpointFormatError)
  })
})
