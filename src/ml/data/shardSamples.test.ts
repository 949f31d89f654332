import assert from 'node:assert/strict'

import {parseJobSpec} from '../spec/index.js'
import {type Samples, shardSamples} from './samples.js'
import {samplesFor} from './samplesFor.js'

/** 7 classification samples of 2 features each: sample i is [i, -i] with label i % 3. */
const classification: Samples = {
  task: 'classification',
  classes: 3,
  positions: 1,
  count: 7,
  featureSize: 2,
  features: Float32Array.from({length: 14}, (_, j) => (j % 2 === 0 ? j / 2 : -(j - 1) / 2)),
  labels: Int32Array.from({length: 7}, (_, i) => i % 3),
}

describe('shardSamples', () => {
  it('gives shard k of K the samples k, k + K, k + 2K, ... with their labels, and together the shards are the split', () => {
    const shards = [0, 1, 2].map((shard) => shardSamples(classification, shard, 3))
    assert.deepEqual(
      shards.map((s) => s.count),
      [3, 2, 2],
    )
    const second = shards[1]!
    assert.equal(second.task, 'classification')
    assert.deepEqual([...second.features], [1, -1, 4, -4])
    if (second.task === 'classification') assert.deepEqual([...second.labels], [1, 1])
    const firstFeatures = shards.flatMap((s) => [...s.features].filter((_, j) => j % 2 === 0)).sort((a, b) => a - b)
    assert.deepEqual(firstFeatures, [0, 1, 2, 3, 4, 5, 6], 'every sample in exactly one shard')
  })

  it('shards a regression by its values too, and returns the same shard object when asked again', () => {
    const regression: Samples = {task: 'regression', outputs: 2, count: 4, featureSize: 1, features: Float32Array.of(0, 1, 2, 3), values: Float32Array.of(0, 0, 1, 10, 2, 20, 3, 30)}
    const odd = shardSamples(regression, 1, 2)
    assert.equal(odd.task, 'regression')
    if (odd.task === 'regression') assert.deepEqual([...odd.values], [1, 10, 3, 30])
    assert.deepEqual([...odd.features], [1, 3])
    assert.equal(shardSamples(regression, 1, 2), odd)
  })

  it('is what a parallel split task trains on, while the test split stays whole', () => {
    const job = parseJobSpec(
      'name: t\nmodel: {inputShape: [784], layers: [{type: dense, units: 10, activation: softmax}]}\ndataset: {name: mnist, trainLimit: 1000, testLimit: 100}\ntraining: {steps: 100}\npayment: {maxPrice: "0.00001"}\nsplit: {tasks: 2, shards: 4, index: 0, shard: 3}',
    )
    const whole = samplesFor({...job, split: undefined}, 'train')
    const shard = samplesFor(job, 'train')
    assert.equal(shard.count, 250)
    assert.deepEqual(shard.features.subarray(0, 784), whole.features.subarray(3 * 784, 4 * 784), 'its first sample is the split\'s fourth')
    assert.equal(samplesFor(job, 'test').count, 100)
  })
})
