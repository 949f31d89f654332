import assert from 'node:assert/strict'
import {selectBackend} from '../backend/selectBackend.js'
import {initialCheckpoint} from '../checkpoint/initialCheckpoint.js'
import type {Checkpoint} from '../checkpoint/types.js'
import {tinySpec} from './testSpecs.js'
import {TrainingSession, type UpdateNoise} from './trainingSession.js'

const spec = tinySpec({steps: 4, interval: 2})

async function weightsAfter(steps: number, updateNoise?: UpdateNoise, from: Checkpoint = initialCheckpoint(spec)): Promise<Float32Array[]> {
  const session = new TrainingSession(spec, {threads: 1, updateNoise})
  try {
    session.load(from)
    await session.run(from.step + steps)
    return (await session.snapshot()).weights.map((w) => w.values)
  } finally {
    session.dispose()
  }
}

describe('TrainingSession updateNoise (perturbed replays)', () => {
  before(async () => {
    await selectBackend('wasm')
  })

  it('moves each weight by at most `relative` of its step update, and repeats itself for one seed', async () => {
    const start = initialCheckpoint(spec)
    const plain = await weightsAfter(1)
    const noisy = await weightsAfter(1, {relative: 1e-2, seed: 7})
    let moved = 0
    for (const [i, w] of noisy.entries()) {
      const before = start.weights[i]?.values as Float32Array
      const honest = plain[i] as Float32Array
      for (let j = 0; j < w.length; j++) {
        const update = Math.abs((honest[j] as number) - (before[j] as number))
        const shift = Math.abs((w[j] as number) - (honest[j] as number))
        // float32 rounding of w + u * |update| adds at most an ulp of w
        assert.ok(shift <= 1e-2 * update + Math.abs(honest[j] as number) * 2 ** -23, `tensor ${i}[${j}]: moved ${shift}, update ${update}`)
        if (shift > 0) moved++
      }
    }
    assert.ok(moved > 100, `only ${moved} weights moved`)
    assert.deepEqual(await weightsAfter(1, {relative: 1e-2, seed: 7}), noisy)
  })

  it('draws other noise for another seed', async () => {
    const a = await weightsAfter(2, {relative: 1e-2, seed: 7})
    const b = await weightsAfter(2, {relative: 1e-2, seed: 8})
    assert.notDeepEqual(a, b)
  })
})
