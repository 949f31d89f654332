import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {Hex} from 'viem'

import {verifyProof} from '../../pol/verifyProof.js'
import {createLocalStore} from '../../store/createLocalStore.js'
import type {BlobStore} from '../../store/types.js'
import {selectBackend} from '../backend/selectBackend.js'
import {decodeCheckpoint} from '../checkpoint/decodeCheckpoint.js'
import {encodeCheckpoint} from '../checkpoint/encodeCheckpoint.js'
import {initialCheckpoint} from '../checkpoint/initialCheckpoint.js'
import {parseJobSpec} from '../spec/parseJobSpec.js'
import type {JobSpec} from '../spec/schema.js'
import {learningRateAt} from './learningRate.js'
import {trainJob} from './trainJob.js'
import {TrainingSession} from './trainingSession.js'

function job(optimizer: string, training = ''): JobSpec {
  return parseJobSpec(`name: optimizers
model: {inputShape: [784], layers: [{type: dense, units: 16, activation: relu}, {type: dense, units: 10}]}
dataset: {name: mnist, trainLimit: 500, testLimit: 100}
training: {steps: 20, batchSize: 16, optimizer: ${optimizer}, seed: 5${training ? `, ${training}` : ''}}
proof: {checkpointInterval: 10}
payment: {maxPrice: "0.00001"}`)
}

/** The weights after `steps` steps from the job's initial checkpoint, flattened. */
async function weightsAfter(spec: JobSpec, steps: number): Promise<Float32Array[]> {
  await selectBackend('wasm')
  const session = new TrainingSession(spec)
  try {
    session.load(initialCheckpoint(spec))
    await session.run(steps)
    return (await session.snapshot()).weights.map((w) => w.values)
  } finally {
    session.dispose()
  }
}

const norm = (tensors: Float32Array[][]) => Math.sqrt(tensors[0]!.reduce((sum, a, i) => sum + a.reduce((s, x, j) => s + (x - (tensors[1]![i]![j] as number)) ** 2, 0), 0))

describe('optimizers: AdamW, the learning-rate schedule and gradient clipping', function () {
  this.timeout(60_000)
  let dir: string
  let store: BlobStore
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-optimizers-'))
    store = createLocalStore(dir, {fsync: false})
  })
  after(() => rm(dir, {recursive: true, force: true}))

  it('the schedule: linear warm-up, then a cosine from learningRate to minLearningRate (known answers)', () => {
    const spec = job('{type: adamw, learningRate: 0.01}', 'schedule: {warmupSteps: 4, minLearningRate: 0.001}')
    assert.deepEqual([0, 1, 3].map((step) => learningRateAt(spec, step)), [0.0025, 0.005, 0.01].map(Math.fround))
    // 16 steps of cosine after 4 of warm-up: step 4 is the top, step 12 half way, (0.01 + 0.001) / 2
    assert.equal(learningRateAt(spec, 4), Math.fround(0.01))
    assert.equal(learningRateAt(spec, 12), Math.fround(0.0055))
    assert.ok(learningRateAt(spec, 19) < 0.0011 && learningRateAt(spec, 19) > 0.001)
    const constant = job('{type: sgd, learningRate: 0.1}', 'schedule: {warmupSteps: 2, decay: constant}')
    assert.deepEqual([0, 1, 2, 19].map((step) => learningRateAt(constant, step)), [0.05, 0.1, 0.1, 0.1].map(Math.fround))
    assert.equal(learningRateAt(job('{type: sgd, learningRate: 0.1}'), 7), Math.fround(0.1))
  })

  it('clipping: one sgd step moves the weights by exactly learningRate x clipNorm when the gradient is larger', async () => {
    const start = initialCheckpoint(job('{type: sgd, learningRate: 0.1}')).weights.map((w) => w.values)
    const clipped = await weightsAfter(job('{type: sgd, learningRate: 0.1}', 'clipNorm: 0.01'), 1)
    assert.ok(Math.abs(norm([clipped, start]) - 0.1 * 0.01) < 1e-6, `moved ${norm([clipped, start])}`)
    const free = await weightsAfter(job('{type: sgd, learningRate: 0.1}'), 1)
    assert.ok(norm([free, start]) > 0.1 * 0.01 * 10, 'unclipped, the same step moves much further')
    const loose = await weightsAfter(job('{type: sgd, learningRate: 0.1}', 'clipNorm: 1000'), 1)
    assert.deepEqual(loose, free, 'below the bound the factor is exactly 1')
  })

  it('adamw: the adam step plus a decoupled decay of lr x weightDecay x w', async () => {
    const start = initialCheckpoint(job('{type: adam, learningRate: 0.01}')).weights.map((w) => w.values)
    const adam = await weightsAfter(job('{type: adam, learningRate: 0.01}'), 1)
    const adamw = await weightsAfter(job('{type: adamw, learningRate: 0.01, weightDecay: 0.1}'), 1)
    for (const [i, w0] of start.entries())
      for (const [j, x] of w0.entries()) assert.ok(Math.abs((adamw[i]![j] as number) - ((adam[i]![j] as number) - 0.001 * x)) < 1e-7, `weight ${i}[${j}]`)
  })

  it('sgd with momentum: the velocity is kept in the checkpoint (m/<weight>), and the second step adds mu x the first', async () => {
    const spec = job('{type: sgd, learningRate: 0.1, momentum: 0.5}')
    const start = initialCheckpoint(spec)
    assert.equal(start.optimizer.type, 'momentum')
    const session = new TrainingSession(spec)
    session.load(start)
    await session.run(1)
    const one = (await session.snapshot())
    assert.equal(one.optimizer.type, 'momentum')
    // after one step m = g, so the weights moved by lr * m
    const m1 = one.optimizer.type === 'momentum' ? one.optimizer.m : []
    for (const [i, w] of one.weights.entries()) for (const [j, x] of w.values.entries()) assert.ok(Math.abs(x - ((start.weights[i]!.values[j] as number) - 0.1 * (m1[i]!.values[j] as number))) < 1e-6)
    const bytes = encodeCheckpoint(one)
    assert.deepEqual(decodeCheckpoint(bytes), one, 'the momentum checkpoint round-trips')
    session.dispose()
    const trained = await trainJob({spec, store})
    const report = await verifyProof({spec, store, manifestHash: trained.manifestHash, randomness: `0x${'ab'.repeat(32)}` as Hex, segments: [0, 1]})
    assert.equal(report.accepted, true, report.reason)
  })

  it('a job with all three trains, proves and replays bit for bit', async () => {
    const spec = job('{type: adamw, learningRate: 0.01, weightDecay: 0.05}', 'schedule: {warmupSteps: 5}, clipNorm: 1')
    const trained = await trainJob({spec, store})
    const report = await verifyProof({spec, store, manifestHash: trained.manifestHash, randomness: `0x${'ef'.repeat(32)}` as Hex, segments: [0, 1]})
    assert.equal(report.accepted, true, report.reason)
  })
})
