import assert from 'node:assert/strict'
import * as tf from '@tensorflow/tfjs'
import {keccak256} from 'viem'
import {selectBackend} from '../ml/backend/selectBackend.js'
import {checkpointHash} from '../ml/checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import {initialCheckpoint} from '../ml/checkpoint/initialCheckpoint.js'
import type {Checkpoint} from '../ml/checkpoint/types.js'
import {loadLocalJob} from '../ml/data/loadLocalJob.js'
import {loadJobSpec} from '../ml/spec/loadJobSpec.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {TrainingSession} from '../ml/train/trainingSession.js'
import {isDecidableOnchain} from './arbitration.js'
import {
  canonicalTensorBytes,
  commitmentChain,
  descriptorHash,
  DisputeTraceError,
  finalClaim,
  graphHash,
  OperatorCorruptionError,
  traceStep,
  type StepTrace,
} from './index.js'

/** The honest state after `step` steps, trained without any tracing. */
async function stateAt(spec: JobSpec, step: number): Promise<Checkpoint> {
  await selectBackend('wasm')
  const session = new TrainingSession(spec)
  try {
    session.load(initialCheckpoint(spec))
    await session.run(step)
    return (await session.snapshot())
  } finally {
    session.dispose()
  }
}

/** The state one untraced step after `state`, and the batch that step used. */
async function untracedStep(spec: JobSpec, state: Checkpoint): Promise<{next: Checkpoint; x: Float32Array}> {
  const session = new TrainingSession(spec)
  try {
    session.load(state)
    const {x} = session.batch(state.step)
    await session.run(state.step + 1)
    return {next: (await session.snapshot()), x}
  } finally {
    session.dispose()
  }
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

/** Everything in a trace that follows from its elements is what the spec's formulas give. */
function assertSelfConsistent(trace: StepTrace): void {
  assert.equal(trace.opCount, trace.elements.length)
  for (const [index, e] of trace.elements.entries()) {
    const j = index + 1
    assert.equal(e.outputHash, keccak256(e.data), `o_${j}`)
    assert.equal(e.descriptorHash, descriptorHash(e.descriptor), `d_${j}`)
    assert.deepEqual(e.descriptor.outputShape, e.shape)
    assert.equal(e.descriptor.outputDtype, e.dtype)
    assert.equal(e.data.length, e.shape.reduce((a, b) => a * b, 1) * (e.dtype === 'bool' ? 1 : 4), `element ${j} size`)
    for (const [k, input] of e.descriptor.inputs.entries()) {
      assert.ok(input >= 1 && input < j, `element ${j} reads earlier elements only`)
      const source = trace.elements[input - 1]
      assert.equal(source?.data.length, e.descriptor.inputShapes[k]!.reduce((a, b) => a * b, 1) * (source?.dtype === 'bool' ? 1 : 4))
    }
    if (e.descriptor.kernel === 'Input') assert.deepEqual(e.descriptor.inputs, [])
  }
  assert.equal(trace.graphHash, graphHash(trace.elements.map((e) => e.descriptorHash)))
  assert.deepEqual(trace.commitments, commitmentChain(trace.stateHash, trace.step, trace.elements.map((e) => e.outputHash)))
  assert.equal(trace.finalCommitment, trace.commitments[trace.opCount])
  assert.equal(trace.finalClaim, finalClaim(trace.finalCommitment, trace.nextStateHash))
}

/** The registered wasm kernels, by name. */
const kernelTable = () => new Map(tf.getKernelsForBackend('wasm').map((k) => [k.kernelName, k]))

function assertKernelsRestored(before: Map<string, tf.KernelConfig>): void {
  const after = kernelTable()
  assert.equal(after.size, before.size)
  for (const [name, config] of before) assert.equal(after.get(name), config, `kernel ${name} is the original config again`)
}

describe('traceStep', () => {
  let mlp: JobSpec
  let cnn: JobSpec
  let mlpState: Checkpoint
  let mlpTrace: StepTrace

  before(async () => {
    mlp = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    cnn = await loadJobSpec('fixtures/jobs/mnist-cnn.yaml')
    mlpState = await stateAt(mlp, 2)
  })

  it("a later task of a split job: traces the job's step, and commits to it counted from the task's start", async () => {
    // smoke-mlp (200 steps) in 2 tasks: task 1 trains steps 100-200 and the game numbers them 0-100
    const second: JobSpec = {...mlp, split: {tasks: 2, index: 1}}
    const state = await stateAt(mlp, 101)
    const whole = await traceStep({spec: mlp, state})
    const task = await traceStep({spec: second, state})
    assert.equal(task.step, 101)
    assert.equal(task.nextStateHash, whole.nextStateHash, 'the same training step')
    assert.equal(task.graphHash, whole.graphHash)
    assert.deepEqual(task.elements.map((e) => e.outputHash), whole.elements.map((e) => e.outputHash))
    assert.deepEqual(task.commitments, commitmentChain(task.stateHash, 1, task.elements.map((e) => e.outputHash)), 'c_0 = keccak256(S_i, 1)')
    assert.notEqual(task.commitments[0], whole.commitments[0])
    await assert.rejects(
      traceStep({spec: second, state: mlpState}),
      (e: unknown) => e instanceof DisputeTraceError && e.shortMessage === 'state.step: expected an integer in [100, 199] (a step of the task), got 2',
    )
  })

  it('MLP (smoke-mlp): the traced step ends in the state the untraced step reaches, bit for bit', async () => {
    const before = kernelTable()
    const {next, x} = await untracedStep(mlp, mlpState)
    mlpTrace = await traceStep({spec: mlp, state: mlpState})
    assertKernelsRestored(before)
    assert.equal(mlpTrace.step, 2)
    assert.equal(mlpTrace.stateHash, checkpointHash(encodeCheckpoint(mlpState)))
    assert.equal(mlpTrace.nextStateHash, checkpointHash(encodeCheckpoint(next)))
    assertSelfConsistent(mlpTrace)
    const kernels = mlpTrace.elements.map((e) => e.descriptor.kernel)
    for (const k of ['Input', '_FusedMatMul', 'BatchMatMul', 'Relu', 'Step', 'Multiply', 'Add', 'Sub', 'Reshape', 'Identity']) assert.ok(kernels.includes(k), `${k} is traced`)
    // the recorded values are the real ones: the batch is an Input, and every new weight is some element's output
    const first = mlpTrace.elements[0]
    assert.equal(first?.descriptor.kernel, 'Input')
    assert.equal(hex(first!.data), hex(canonicalTensorBytes(x, 'float32')))
    const outputs = new Set(mlpTrace.elements.filter((e) => e.descriptor.kernel !== 'Input').map((e) => hex(e.data)))
    const inputs = new Set(mlpTrace.elements.filter((e) => e.descriptor.kernel === 'Input').map((e) => hex(e.data)))
    const nextTensors = [...next.weights, ...(next.optimizer.type === 'adam' ? [...next.optimizer.m, ...next.optimizer.v] : [])]
    for (const t of nextTensors) assert.ok(outputs.has(hex(canonicalTensorBytes(t.values, 'float32'))), `${t.name} after the step is a traced output`)
    const startTensors = [...mlpState.weights, ...(mlpState.optimizer.type === 'adam' ? [...mlpState.optimizer.m, ...mlpState.optimizer.v] : [])]
    for (const t of startTensors) assert.ok(inputs.has(hex(canonicalTensorBytes(t.values, 'float32'))), `${t.name} before the step is an Input element`)
  })

  it('is deterministic: tracing the same step twice gives identical traces', async () => {
    const again = await traceStep({spec: mlp, state: mlpState})
    assert.deepEqual(again, mlpTrace)
  })

  it('CNN (mnist-cnn): the traced step ends in the untraced state, bit for bit', async () => {
    const state = await stateAt(cnn, 1)
    const {next} = await untracedStep(cnn, state)
    const trace = await traceStep({spec: cnn, state})
    assert.equal(trace.nextStateHash, checkpointHash(encodeCheckpoint(next)))
    assertSelfConsistent(trace)
    const kernels = trace.elements.map((e) => e.descriptor.kernel)
    for (const k of ['Conv2D', 'MaxPool', 'MaxPoolGrad', 'Conv2DBackpropFilter', 'Relu', 'Step']) assert.ok(kernels.includes(k), `${k} is traced`)
  })

  it('restores the original kernels when the step fails, and refuses steps outside the job', async () => {
    const before = kernelTable()
    await assert.rejects(
      traceStep({spec: mlp, state: mlpState, corruption: {step: 2, kernel: 'Relu', occurrence: 1, element: 1_000_000}}),
      (e: unknown) => e instanceof OperatorCorruptionError && /expected element < 1024 \(the output's size\), got 1000000/.test(e.shortMessage),
    )
    assertKernelsRestored(before)
    // training still works, untraced, after the failure
    const {next} = await untracedStep(mlp, mlpState)
    assert.equal(checkpointHash(encodeCheckpoint(next)), mlpTrace.nextStateHash)
    await assert.rejects(traceStep({spec: mlp, state: {...mlpState, step: mlp.training.steps}}), DisputeTraceError)
    await assert.rejects(traceStep({spec: mlp, state: mlpState, corruption: {step: 3, kernel: 'Relu', occurrence: 1, element: 0}}), /corruption.step: expected the traced step 2, got 3/)
  })

  it('traces a transformer step (sums-transformer, batch 2): deterministic, ending in the trained state; elementwise ops on chain, the rest to the committee', async () => {
    const full = await loadLocalJob('fixtures/jobs/sums-transformer.yaml')
    const spec = {...full, training: {...full.training, batchSize: 2}}
    const state = initialCheckpoint(spec)
    const [a, b] = [await traceStep({spec, state}), await traceStep({spec, state})]
    assert.equal(a.finalCommitment, b.finalCommitment)
    const session = new TrainingSession(spec)
    session.load(state)
    await session.run(1)
    assert.equal(checkpointHash(encodeCheckpoint(await session.snapshot())), a.nextStateHash)
    session.dispose()
    const kernels = new Set(a.elements.map((element) => element.descriptor.kernel))
    for (const kernel of ['OneHot', 'Transpose', 'Softmax', 'Erf', 'Rsqrt', 'Mean']) assert.ok(kernels.has(kernel), `no ${kernel} in the trace`)
    const onchain = new Set(a.elements.filter((element) => isDecidableOnchain(element.descriptor, 4096)).map((element) => element.descriptor.kernel))
    for (const kernel of ['Softmax', 'Erf', 'BatchMatMul', 'Transpose']) assert.ok(!onchain.has(kernel), `${kernel} decided on chain`)
    for (const kernel of ['Add', 'Sub', 'Multiply']) assert.ok(onchain.has(kernel), `${kernel} not decided on chain`)
  })
})
