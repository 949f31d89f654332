import assert from 'node:assert/strict'
import type {Hex} from 'viem'
import {selectBackend} from '../../ml/backend/index.js'
import {loadMnist, type Mnist} from '../../ml/data/index.js'
import {applyMapping} from '../mappingLayers.js'
import {featureCount, mappingStages} from '../mappingStages.js'
import {choleskySolve, linearAttacker, localAttacker, meanImage, mlpAttacker, normalisedMse, RidgeAccumulator, type Attacker} from './index.js'

const key = `0x${'5a'.repeat(32)}` as Hex

/** The first `count` of `samples`, sharing its arrays. */
function first(samples: Mnist, count: number): Mnist {
  return {images: samples.images.subarray(0, count * featureCount), labels: samples.labels.subarray(0, count), count}
}

describe('privacy: known-plaintext attacks', () => {
  it('choleskySolve solves a symmetric positive definite system and refuses an indefinite one', () => {
    // A = M M^T + I for a fixed M, X known: B = A X must give X back
    const d = 6
    const m = 3
    const M = Float64Array.from({length: d * d}, (_, i) => Math.sin(i + 1))
    const a = new Float64Array(d * d)
    for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) for (let k = 0; k < d; k++) a[i * d + j] = (a[i * d + j] as number) + (M[i * d + k] as number) * (M[j * d + k] as number)
    for (let i = 0; i < d; i++) a[i * d + i] = (a[i * d + i] as number) + 1
    const x = Float64Array.from({length: d * m}, (_, i) => Math.cos(3 * i))
    const b = new Float64Array(d * m)
    for (let i = 0; i < d; i++) for (let c = 0; c < m; c++) for (let k = 0; k < d; k++) b[i * m + c] = (b[i * m + c] as number) + (a[i * d + k] as number) * (x[k * m + c] as number)
    choleskySolve(Float64Array.from(a), b, d, m)
    for (const [i, v] of b.entries()) assert.ok(Math.abs(v - (x[i] as number)) < 1e-9, `x[${i}]: expected ${x[i]}, got ${v}`)
    assert.throws(() => choleskySolve(Float64Array.from([1, 2, 2, 1]), new Float64Array(2), 2, 1), /not positive definite/)
  })

  it('RidgeAccumulator recovers an exact affine map from noise-free pairs', () => {
    const inputs = 4
    const outputs = 2
    const weights = [0.5, -1, 2, 0, 0, 3, -0.25, 1] // inputs x outputs
    const bias = [0.1, -2]
    const ridge = new RidgeAccumulator(inputs, outputs)
    for (let t = 0; t < 40; t++) {
      // a frequency per input, so the inputs are linearly independent over the pairs; one is sparse, as pixels are
      const x = Float64Array.from({length: inputs}, (_, i) => (i === 0 && t % 3 === 0 ? 0 : Math.sin(t * (0.9 + 0.7 * i) + i)))
      const y = Float64Array.from(bias, (b, j) => b + x.reduce((sum, xi, i) => sum + xi * (weights[i * outputs + j] as number), 0))
      ridge.add(x, y)
    }
    const fit = ridge.fit(1e-12)
    for (const [i, w] of weights.entries()) assert.ok(Math.abs((fit.weights[i] as number) - w) < 1e-6, `weight ${i}: expected ${w}, got ${fit.weights[i]}`)
    for (const [j, b] of bias.entries()) assert.ok(Math.abs((fit.bias[j] as number) - b) < 1e-6, `bias ${j}: expected ${b}, got ${fit.bias[j]}`)
  })

  it('normalisedMse is 0 for the truth and 1 for the reference image', () => {
    const truth = first(loadMnist({split: 'test', limit: 50}), 50)
    const reference = meanImage(truth.images, truth.count)
    assert.equal(normalisedMse(truth.images, truth.images, truth.count, reference), 0)
    const guess = new Float32Array(truth.images.length)
    for (let t = 0; t < truth.count; t++) guess.set(Float32Array.from(reference), t * featureCount)
    assert.ok(Math.abs(normalisedMse(guess, truth.images, truth.count, reference) - 1) < 1e-5)
  })

  describe('on real MNIST', function () {
    this.timeout(60_000)
    const known = 2000
    const targetCount = 300
    let train: Mnist
    let targets: Mnist
    let reference: Float64Array
    const mapped = new Map<string, {train: Mnist; targets: Mnist}>()

    before(async () => {
      await selectBackend('wasm')
      train = loadMnist({split: 'train', limit: known})
      targets = loadMnist({split: 'test', limit: targetCount})
      reference = meanImage(train.images, train.count)
      for (const mapping of ['orthogonal', 'local', 'tanh-mix'] as const) {
        const stages = mappingStages(mapping, key)
        mapped.set(mapping, {train: applyMapping(stages, train), targets: applyMapping(stages, targets)})
      }
    })

    /** Feeds the attacker pairs [from, to) of the mapping's data and scores its reconstructions of the targets. */
    async function attack(attacker: Attacker, mapping: string, from: number, to: number): Promise<number> {
      const data = mapped.get(mapping) as {train: Mnist; targets: Mnist}
      attacker.observe({
        raw: train.images.subarray(from * featureCount, to * featureCount),
        mapped: data.train.images.subarray(from * featureCount, to * featureCount),
        count: to - from,
      })
      const guess = await attacker.reconstruct(data.targets.images, targetCount)
      assert.ok(guess.every((v) => v >= 0 && v <= 1), 'reconstructions are pixels in [0, 1]')
      return normalisedMse(guess, targets.images, targetCount, reference)
    }

    it('the linear attacker undoes orthogonal once the pairs span the data, not from 10 pairs', async () => {
      const attacker = linearAttacker()
      const few = await attack(attacker, 'orthogonal', 0, 10)
      assert.ok(few > 0.3, `10 pairs: expected normalised MSE > 0.3, got ${few}`)
      const many = await attack(attacker, 'orthogonal', 10, known)
      assert.ok(many < 0.01, `${known} pairs: expected normalised MSE < 0.01, got ${many}`)
    })

    it('the local attacker undoes local from 50 pairs, and learns little from them about orthogonal', async () => {
      const local = await attack(localAttacker(), 'local', 0, 50)
      assert.ok(local < 0.15, `local, 50 pairs: expected normalised MSE < 0.15, got ${local}`)
      const orthogonal = await attack(localAttacker(), 'orthogonal', 0, 50)
      assert.ok(orthogonal > 0.5, `orthogonal, 50 pairs: expected normalised MSE > 0.5, got ${orthogonal}`)
    })

    it('tanh-mix is not linear: least squares on 2000 pairs stays well above its error on orthogonal', async () => {
      const error = await attack(linearAttacker(), 'tanh-mix', 0, known)
      assert.ok(error > 0.03, `tanh-mix, ${known} pairs: expected normalised MSE > 0.03, got ${error}`)
    })

    it('the MLP attacker learns an inverse from a few hundred pairs', async () => {
      const error = await attack(mlpAttacker({hidden: 128, steps: () => 150, seed: 3}), 'tanh-mix', 0, 500)
      assert.ok(error < 0.5, `tanh-mix, 500 pairs: expected normalised MSE < 0.5, got ${error}`)
    })
  })
})
