import assert from 'node:assert/strict'

import {kernelShares} from '../../bench/peer/kernelShares.js'
import {kernelShareTable} from '../../bench/peer/kernelShareTable.js'
import {peerFlops} from '../../bench/peer/peerFlops.js'
import {peerTable} from '../../bench/peer/peerTable.js'
import {peerTarget} from '../../bench/peer/peerTarget.js'
import {stepPlan} from '../../bench/peer/stepPlan.js'
import {type PeerMeasurement, summarizePeerRow} from '../../bench/peer/summarizePeerRow.js'
import {loadJobSpec} from '../../src/ml/spec/loadJobSpec.js'
import {parseJobSpec} from '../../src/ml/spec/parseJobSpec.js'

// The helpers of `npm run bench:peer` that need no PyTorch and no training: FLOP counting, targets, tables.
const job = (layers: string, {inputShape = '[784]', optimizer = '{type: sgd, learningRate: 0.05}', interval = 100} = {}) =>
  parseJobSpec(`name: peer-case
model: {inputShape: ${inputShape}, layers: ${layers}}
dataset: {name: mnist, trainLimit: 300, testLimit: 100}
training: {steps: 1000, batchSize: 64, optimizer: ${optimizer}, seed: 1}
proof: {checkpointInterval: ${interval}}
payment: {maxPrice: "0.00001"}`)

const mlp = '[{type: dense, units: 128, activation: relu}, {type: dense, units: 10, activation: softmax}]'
const cnn = '[{type: conv2d, filters: 8, kernelSize: 3, activation: relu}, {type: maxPooling2d, poolSize: 2}, {type: flatten}, {type: dense, units: 10, activation: softmax}]'

describe('bench:peer helpers', () => {
  describe('peerFlops', () => {
    // MLP 784-128-10 at batch 64: 2 FLOPs per multiply-add in x·W (forward), dL/dW of both layers and dL/dx of the
    // second only (nothing needs the input's gradient), plus the elementwise rest (bias, relu, softmax loss).
    const forward = 2 * 64 * (784 * 128 + 128 * 10)
    const backward = 2 * 64 * (784 * 128 + 128 * 10) + 2 * 64 * 10 * 128

    it('counts the forward and backward products of the MLP from its shapes, without the first layer input gradient', () => {
      const flops = peerFlops(job(mlp))
      assert.ok(flops >= forward + backward, `${flops} < the products alone, ${forward + backward}`)
      assert.ok(flops < (forward + backward) * 1.01, `${flops}: the elementwise part should be under 1% here`)
    })

    it('leaves the optimizer update out, so sgd and adam steps count the same', () => {
      assert.equal(peerFlops(job(mlp, {optimizer: '{type: adam, learningRate: 0.01}'})), peerFlops(job(mlp)))
    })

    it('counts the CNN convolution: forward plus its weight gradient dominate', () => {
      const conv = 2 * 64 * 26 * 26 * 8 * 9
      const flops = peerFlops(job(cnn, {inputShape: '[28, 28, 1]'}))
      assert.ok(flops > 2 * conv, `${flops} should hold the convolution forward and its filter gradient, 2 x ${conv}`)
      assert.ok(flops < 4 * conv, `${flops}: the first layer's input gradient must not be counted`)
    })
  })

  describe('peerTarget', () => {
    it('asks 0.8x of a dense-only model and 1.5x of a convolution or attention model', async () => {
      assert.deepEqual(peerTarget(job(mlp).model), {ratio: 0.8, kind: 'mlp'})
      assert.deepEqual(peerTarget(job(cnn, {inputShape: '[28, 28, 1]'}).model), {ratio: 1.5, kind: 'cnn'})
      // attention sits inside residual blocks there
      assert.deepEqual(peerTarget((await loadJobSpec('fixtures/jobs/sums-transformer.yaml')).model), {ratio: 1.5, kind: 'transformer'})
    })
  })

  describe('stepPlan', () => {
    it('warms up for one checkpoint interval and times whole intervals, the job long enough for every window', () => {
      const {plan, spec} = stepPlan(job(mlp, {interval: 50}), 130, 3)
      assert.deepEqual(plan, {warmupSteps: 50, timedSteps: 150, repeats: 3})
      assert.equal(spec.training.steps, 50 + 3 * 150)
    })
  })

  const row: PeerMeasurement = {
    model: 'mlp',
    batchSize: 64,
    optimizer: 'sgd',
    flopsPerStep: 26e6,
    target: 0.8,
    gensyn: [600, 650, 520],
    torch: [
      {threads: 1, stepsPerSecond: [2600, 2700, 2000]},
      {threads: 2, stepsPerSecond: [2400, 1000, 2500]},
    ],
  }

  describe('summarizePeerRow', () => {
    it('takes the best repeat of each side and PyTorch at its best thread count', () => {
      const summary = summarizePeerRow(row)
      assert.equal(summary.gensyn, 650)
      assert.equal(summary.torch, 2700)
      assert.equal(summary.torchThreads, 1)
      assert.equal(summary.ratio, 650 / 2700)
      assert.equal(summary.meetsTarget, false)
      // the noisiest side: 2 threads, (2500 - 1000) / 2500
      assert.equal(summary.spread, 0.6)
    })

    it('meets the target at or above the ratio', () => {
      assert.equal(summarizePeerRow({...row, gensyn: [2160]}).meetsTarget, true)
    })

    it('refuses a side without repeats', () => {
      assert.throws(() => summarizePeerRow({...row, gensyn: []}), /mlp: expected at least one repeat on each side/)
    })
  })

  describe('peerTable', () => {
    it('prints one line per model with both sides, the ratio against its target, then the skipped models and why', () => {
      const text = peerTable([row, {...row, model: 'one-thread', torch: [{threads: 1, stepsPerSecond: [100]}], gensyn: [200], target: 1.5}, {model: 'odd', skipped: 'PyTorch side cannot build it: layer type x'}])
      const lines = text.split('\n')
      assert.match(lines[0] as string, /^model\s+batch\s+optimizer\s+MFLOP\/step\s+gensyn steps\/s\s+GFLOP\/s\s+torch 1t steps\/s\s+torch 2t steps\/s\s+torch best\s+GFLOP\/s\s+gensyn\/torch\s+target\s+spread$/)
      assert.match(lines[1] as string, /^mlp\s+64\s+sgd\s+26\.00\s+650\s+16\.90\s+2700\s+2500\s+2700 \(1t\)\s+70\.20\s+0\.24x\s+>= 0\.8x MISSED\s+60%$/)
      // a thread count not run for a model shows as '-'
      assert.match(lines[2] as string, /^one-thread\s+.*\s+100\s+-\s+100 \(1t\)\s+2\.60\s+2\.00x\s+>= 1\.5x met\s+0%$/)
      assert.equal(lines[3], 'odd: not measured: PyTorch side cannot build it: layer type x')
    })
  })

  describe('kernelShares', () => {
    const timings = [
      {name: 'Conv2D', ms: 3},
      {name: 'Relu', ms: 0.5},
      {name: 'Conv2D', ms: 5},
      {name: 'Relu', ms: 0.5},
      // a custom-gradient op's entry spans the kernels it calls: not counted twice
      {name: 'fusedMatMul__op', ms: 4},
    ]

    it('sums each kernel over the profiled steps, per step and as a share of the step, largest first, without op scopes', () => {
      const shares = kernelShares({timings, steps: 2, stepMs: 10})
      assert.deepEqual(shares.kernels, [
        {kernel: 'Conv2D', callsPerStep: 1, msPerStep: 4, share: 0.4},
        {kernel: 'Relu', callsPerStep: 1, msPerStep: 0.5, share: 0.05},
      ])
      assert.equal(shares.outsideMs, 5.5)
      assert.equal(shares.outsideShare, 0.55)
    })

    it('refuses a profile of no steps', () => {
      assert.throws(() => kernelShares({timings, steps: 0, stepMs: 10}), /expected positive steps and stepMs, got 0 and 10/)
    })

    it('prints the top kernels, the rest summed, the time outside kernels and the whole step', () => {
      const text = kernelShareTable('cnn', kernelShares({timings, steps: 2, stepMs: 10}), 1)
      const lines = text.split('\n')
      assert.match(lines[1] as string, /^cnn\s+Conv2D\s+1\s+4\.000\s+40\.0%$/)
      assert.match(lines[2] as string, /^cnn\s+1 other kernels\s+1\s+0\.500\s+5\.0%$/)
      assert.match(lines[3] as string, /^cnn\s+outside kernels \(tape, tidy, batch, dispatch, profiler\)\s+5\.500\s+55\.0%$/)
      assert.match(lines[4] as string, /^cnn\s+whole step \(profiled\)\s+10\.000\s+100%$/)
    })
  })
})
