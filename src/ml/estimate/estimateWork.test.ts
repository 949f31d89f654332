import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import path from 'node:path'

import {InvalidInputError} from '../../errors/base.js'
import {loadLocalJob} from '../data/loadLocalJob.js'
import {loadJobSpec} from '../spec/loadJobSpec.js'
import {parseJobSpec} from '../spec/parseJobSpec.js'
import type {JobSpec} from '../spec/schema.js'
import {escrowFor} from './escrowFor.js'
import {estimateWork} from './estimateWork.js'
import {kernelFlops, totalFlops} from './kernelFlops.js'
import {measureWork, type WorkMeasurement} from './measureWork.js'
import {unrollStep} from './unrollStep.js'
import {workUnitsFor} from './workUnitsFor.js'
import {defaultWorkTable, opClasses, type WorkTable} from './workTable.js'

const fixtures = readdirSync('fixtures/jobs')
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => path.join('fixtures/jobs', name))

function spec({layers, inputShape = '[784]', steps = 10, batchSize = 8, optimizer = '{type: adam, learningRate: 0.01}', extra = '', training = ''}: {layers: string; inputShape?: string; steps?: number; batchSize?: number; optimizer?: string; extra?: string; training?: string}): JobSpec {
  return parseJobSpec(`name: estimate-case
model: {inputShape: ${inputShape}, layers: ${layers}}
dataset: {name: mnist, trainLimit: 300, testLimit: 100}
training: {steps: ${steps}, batchSize: ${batchSize}, optimizer: ${optimizer}, seed: 3${training ? `, ${training}` : ''}}
proof: {checkpointInterval: 5}
payment: {maxPrice: "0.00001"}
${extra}`)
}

// Every layer type, activation, padding, stride and optimizer the schema allows, in places where tfjs's
// gradients differ (fused or not, first layer or not, dropout before and after the first weights).
const variants: Record<string, JobSpec> = {
  'sgd with momentum': spec({
    optimizer: '{type: sgd, learningRate: 0.05, momentum: 0.9}',
    layers: '[{type: dense, units: 12, activation: relu}, {type: dense, units: 10}]',
  }),
  'adam, conv, average pooling, global average pooling': spec({
    inputShape: '[28, 28, 1]',
    layers: '[{type: conv2d, filters: 4, kernelSize: 3, activation: relu}, {type: avgPooling2d}, {type: conv2d, filters: 6, kernelSize: 3}, {type: globalAveragePooling}, {type: dense, units: 10}]',
  }),
  'sgd, dense over rows, global average pooling of a sequence': spec({
    optimizer: '{type: sgd, learningRate: 0.1}',
    inputShape: '[28, 28]',
    layers: '[{type: dense, units: 8, activation: gelu}, {type: globalAveragePooling}, {type: dense, units: 10}]',
  }),
  'adamw, warm-up and cosine schedule, gradient clipping': spec({
    optimizer: '{type: adamw, learningRate: 0.01, weightDecay: 0.05}',
    layers: '[{type: dense, units: 12, activation: relu}, {type: dense, units: 10}]',
    training: 'schedule: {warmupSteps: 3}, clipNorm: 0.5',
  }),
  'adam, dropout, 4 micro-batches averaged, gradient clipping': spec({
    layers: '[{type: dense, units: 12, activation: relu}, {type: dropout, rate: 0.2}, {type: dense, units: 10}]',
    training: 'microBatches: 4, clipNorm: 1',
  }),
  'sgd with gradient clipping': spec({
    optimizer: '{type: sgd, learningRate: 0.1}',
    layers: '[{type: dense, units: 12, activation: relu}, {type: dense, units: 10}]',
    training: 'clipNorm: 1',
  }),
  'sgd, dropout on the input, relu then linear': spec({
    optimizer: '{type: sgd, learningRate: 0.1}',
    layers: '[{type: dropout, rate: 0.2}, {type: dense, units: 12, activation: relu}, {type: dense, units: 10, activation: linear}]',
  }),
  'sgd, linear first, tanh, dropout, sigmoid, hidden softmax': spec({
    optimizer: '{type: sgd, learningRate: 0.1}',
    layers:
      '[{type: dense, units: 20}, {type: dense, units: 16, activation: tanh}, {type: dropout, rate: 0.3}, {type: dense, units: 12, activation: sigmoid}, {type: dense, units: 11, activation: softmax}, {type: dense, units: 10}]',
  }),
  'adam, strided same-padded linear conv, sigmoid and tanh convs, same pooling, dropout': spec({
    inputShape: '[28, 28, 1]',
    layers:
      '[{type: conv2d, filters: 4, kernelSize: [3, 2], strides: 2, padding: same}, {type: conv2d, filters: 5, kernelSize: 3, activation: sigmoid}, {type: maxPooling2d, poolSize: 3, strides: 2, padding: same}, {type: dropout, rate: 0.25}, {type: conv2d, filters: 3, kernelSize: 2, activation: tanh}, {type: flatten}, {type: dense, units: 10, activation: softmax}]',
  }),
  'adam, pooling on the raw input, relu convs, hidden softmax conv': spec({
    inputShape: '[28, 28, 1]',
    layers:
      '[{type: maxPooling2d, poolSize: 2}, {type: conv2d, filters: 3, kernelSize: 3, activation: relu}, {type: conv2d, filters: 2, kernelSize: 3, strides: [2, 1], activation: relu}, {type: conv2d, filters: 2, kernelSize: 2, activation: softmax}, {type: flatten}, {type: dense, units: 10, activation: softmax}]',
  }),
}

/** Per kernel with FLOPs: calls and FLOPs per step, as the estimator predicts them and as the run counted them. */
function kernelDifferences(job: JobSpec, measured: WorkMeasurement): string[] {
  const predicted = new Map<string, {calls: number; flops: number}>()
  for (const op of unrollStep(job)) {
    const tally = predicted.get(op.kernelName) ?? {calls: 0, flops: 0}
    predicted.set(op.kernelName, {calls: tally.calls + 1, flops: tally.flops + totalFlops(kernelFlops(op.kernelName, op)!)})
  }
  const counted = Object.entries(measured.kernels).filter(([, tally]) => totalFlops(tally.flops) > 0)
  const names = new Set([...predicted.keys(), ...counted.map(([name]) => name)])
  return [...names].flatMap((name) => {
    const p = predicted.get(name) ?? {calls: 0, flops: 0}
    const m = measured.kernels[name]
    const c = {calls: m?.calls ?? 0, flops: m ? totalFlops(m.flops) : 0}
    return p.calls === c.calls && p.flops === c.flops ? [] : [`${name}: predicted ${p.calls} calls ${p.flops} FLOPs, counted ${c.calls} calls ${c.flops} FLOPs`]
  })
}

describe('estimateWork: estimated against measured FLOPs (real tfjs wasm training on MNIST)', function () {
  this.timeout(60_000)

  const within10 = (estimated: number, measured: number, what: string) =>
    assert.ok(Math.abs(estimated - measured) <= 0.1 * measured, `${what}: estimated ${estimated}, measured ${measured} (${((estimated / measured - 1) * 100).toFixed(2)} %)`)

  const cases: [string, () => Promise<JobSpec>][] = [
    ...fixtures.map((file): [string, () => Promise<JobSpec>] => [file, () => loadLocalJob(file)]),
    ...Object.entries(variants).map(([name, job]): [string, () => Promise<JobSpec>] => [name, async () => job]),
  ]
  for (const [name, load] of cases) {
    it(`${name}: FLOPs per step within ±10 % of an instrumented 2-step run, every kernel call predicted`, async () => {
      const job = await load()
      const estimate = estimateWork(job)
      const measured = await measureWork({spec: job, steps: 2, backend: 'wasm', timedSteps: 0})
      assert.deepEqual(measured.uncounted, {}, 'kernels with no counting rule ran')
      within10(estimate.flopsPerStep, measured.flopsPerStep, 'FLOPs per step')
      for (const opClass of opClasses) within10(estimate.flopsByClass[opClass], measured.flopsByClass[opClass], opClass)
      // stricter than the target: the estimator predicts each kernel call, so a change to the training step
      // (a new op, an op gone) shows here even when it moves the total by less than 10 %
      assert.deepEqual(kernelDifferences(job, measured), [])
    })
  }

  it('counts the matmul FLOPs of smoke-mlp as derived by hand', async () => {
    // 784-32-10, batch 32: the relu layer runs unfused (its input gets no gradient: it is the batch), the
    // fused output layer computes its input gradient too: 2 + 1 products of 784x32 and 3 of 32x10
    const estimate = estimateWork(await loadJobSpec('fixtures/jobs/smoke-mlp.yaml'))
    assert.equal(estimate.flopsByClass.matmul, 2 * (2 * 32 * 784 * 32) + 3 * (2 * 32 * 32 * 10))
    assert.equal(estimate.flopsByClass.conv, 0)
    assert.equal(estimate.steps, 200)
    assert.equal(estimate.flops, estimate.flopsPerStep * 200)
    assert.equal(estimate.flopsPerStep, totalFlops(estimate.flopsByClass))
  })
})

describe('estimateWork: work units', () => {
  it('weights the classes, divides by flopsPerWorkUnit and rounds the task up, exactly', () => {
    // 1,000,000 matmul FLOPs + 1 transcendental (weight 4): 1.000004 units per step, 3 steps -> ceil(3.000012)
    assert.deepEqual(workUnitsFor({matmul: 1_000_000, conv: 0, elementwise: 0, transcendental: 1}, 3, defaultWorkTable), {perStep: 1.000004, total: 4n})
    // an exact multiple is not rounded up (integer arithmetic: no float residue)
    assert.equal(workUnitsFor({matmul: 700_000, conv: 200_000, elementwise: 100_000, transcendental: 0}, 30_000, defaultWorkTable).total, 30_000n)
    const heavy: WorkTable = {...defaultWorkTable, convMilli: 2500, flopsPerWorkUnit: 1000}
    assert.equal(workUnitsFor({matmul: 0, conv: 1000, elementwise: 0, transcendental: 0}, 7, heavy).total, 18n) // ceil(2.5 * 7)
  })

  it("is the spec's weighted FLOPs per step times its steps, and follows the table", async () => {
    const job = await loadJobSpec('fixtures/jobs/mnist-cnn.yaml')
    const estimate = estimateWork(job)
    const {matmul, conv, elementwise, transcendental} = estimate.flopsByClass
    const weighted = matmul + conv + elementwise + 4 * transcendental
    assert.equal(estimate.workUnitsPerStep, weighted / 1_000_000)
    assert.equal(estimate.workUnits, BigInt(Math.ceil((weighted * job.training.steps) / 1_000_000)))
    const cheapExp = estimateWork(job, {...defaultWorkTable, transcendentalMilli: 1000})
    assert.equal(cheapExp.workUnitsPerStep, (matmul + conv + elementwise + transcendental) / 1_000_000)
    assert.ok(cheapExp.workUnits < estimate.workUnits)
  })

  it("a split task is estimated over its own step range; memory counts adam's state", async () => {
    const job = spec({layers: '[{type: dense, units: 16, activation: relu}, {type: dense, units: 10}]', steps: 30, extra: 'split: {tasks: 3, index: 1}'})
    const estimate = estimateWork(job)
    assert.equal(estimate.steps, 10)
    assert.equal(estimate.workUnits, workUnitsFor(estimate.flopsByClass, 10, defaultWorkTable).total)
    const params = 784 * 16 + 16 + 16 * 10 + 10
    assert.equal(estimate.memoryBytes, 4 * (4 * params + 8 * (784 + 16 + 10)))
    const sgd = estimateWork(spec({layers: '[{type: dense, units: 16, activation: relu}, {type: dense, units: 10}]', optimizer: '{type: sgd, learningRate: 0.1}'}))
    assert.equal(sgd.memoryBytes, 4 * (2 * params + 8 * (784 + 16 + 10)))
  })
})

describe('estimateWork: protocol limits (one line naming the field)', () => {
  const refused = (job: JobSpec, message: RegExp, table: WorkTable = defaultWorkTable) =>
    assert.throws(
      () => estimateWork(job, table),
      (error: unknown) => {
        assert.ok(error instanceof InvalidInputError, String(error))
        assert.equal(error.exitCode, 2)
        assert.match(error.shortMessage, message)
        assert.equal(error.shortMessage.split('\n').length, 1)
        return true
      },
    )
  const mlp = '[{type: dense, units: 16, activation: relu}, {type: dense, units: 10}]'

  it('maxSteps: training.steps', () => {
    refused(spec({layers: mlp, steps: 250_000}), /^training\.steps: expected at most 100000 \(protocol limit maxSteps\), got 250000$/)
    assert.equal(estimateWork(spec({layers: mlp, steps: 100_000})).steps, 100_000)
  })

  it('maxLayers: model.layers', () => {
    const layers = `[${Array(32).fill('{type: dropout, rate: 0.1}').join(', ')}, {type: dense, units: 10}]`
    refused(spec({layers}), /^model\.layers: expected at most 32 layers \(protocol limit maxLayers\), got 33$/)
  })

  it('maxBatchSize: training.batchSize', () => {
    refused(spec({layers: mlp, batchSize: 2048}), /^training\.batchSize: expected at most 1024 \(protocol limit maxBatchSize\), got 2048$/)
  })

  it("maxTensorElements: a layer's output (batch included) or weights, and the input batch", () => {
    refused(
      spec({inputShape: '[28, 28, 1]', batchSize: 32, layers: '[{type: conv2d, filters: 1024, kernelSize: 3}, {type: flatten}, {type: dense, units: 10}]'}),
      /^model\.layers\[0\]: expected at most 16777216 elements per tensor \(protocol limit maxTensorElements\), got 22151168 \(its output \[32, 26, 26, 1024\], batch included\)$/,
    )
    refused(spec({layers: '[{type: dense, units: 30000}, {type: dense, units: 10}]'}), /^model\.layers\[0\]: .*got 23520000 \(its kernel \[784, 30000\]\)$/)
    refused(spec({layers: mlp, batchSize: 32}), /^model\.inputShape: .*\(protocol limit maxTensorElements\), got 25088 \(the input batch \[32, 784\]\)$/, {...defaultWorkTable, maxTensorElements: 20_000})
  })

  it('maxWorkUnits: the work units of one task (a split job is checked per task)', () => {
    // 784-4096-4096-10 at batch 1024: about 1.2e5 work units per step
    const big = '[{type: dense, units: 4096, activation: relu}, {type: dense, units: 4096, activation: relu}, {type: dense, units: 10}]'
    refused(spec({layers: big, batchSize: 1024, steps: 10_000}), /^training\.steps: expected at most 1000000000 work units per task \(protocol limit maxWorkUnits\), got \d{10} \(.* per step x 10000 steps; .*\)$/)
    const job = spec({layers: mlp, steps: 600})
    const units = estimateWork(job).workUnits
    refused(job, /^training\.steps: expected at most \d+ work units per task \(protocol limit maxWorkUnits\)/, {...defaultWorkTable, maxWorkUnits: Number(units) - 1})
    assert.equal(estimateWork(job, {...defaultWorkTable, maxWorkUnits: Number(units)}).workUnits, units)
    // the same job split in 3: the job file covers all 600 steps, and each task is a third of the work
    const split = spec({layers: mlp, steps: 600, extra: 'split: {tasks: 3}'})
    assert.equal(estimateWork(split, {...defaultWorkTable, maxWorkUnits: Number(units) - 1}).steps, 600)
  })
})

describe('escrowFor', () => {
  it('is ceil(workUnits * maxPrice * (10000 + verifierFeeBps) / 10000)', () => {
    assert.equal(escrowFor(10n, 5n, 2000), 60n)
    assert.equal(escrowFor(3n, 1n, 2000), 4n) // 3.6 rounds up
    assert.equal(escrowFor(1n, 1n, 1), 2n) // 1.0001 rounds up
    assert.equal(escrowFor(7n, 10n ** 13n, 0), 7n * 10n ** 13n)
    assert.equal(escrowFor(0n, 10n ** 13n, 2000), 0n)
    assert.equal(escrowFor(123_456_789n, 10_000_000_000_001n, 2500), (123_456_789n * 10_000_000_000_001n * 12_500n + 9_999n) / 10_000n)
  })

  it('refuses negative amounts and fractional or out-of-range fees', () => {
    assert.throws(() => escrowFor(-1n, 1n, 2000), /^InvalidInputError: workUnits: expected at least 0, got -1/)
    assert.throws(() => escrowFor(1n, -1n, 2000), /maxPrice/)
    assert.throws(() => escrowFor(1n, 1n, 20.5), /verifierFeeBps/)
    assert.throws(() => escrowFor(1n, 1n, -1), /verifierFeeBps/)
    assert.throws(() => escrowFor(1n, 1n, 70_000), /verifierFeeBps/)
  })
})
