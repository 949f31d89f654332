import assert from 'node:assert/strict'
import {hexToBytes, keccak256, type Hex} from 'viem'
import {selectBackend} from '../ml/backend/selectBackend.js'
import {initialCheckpoint} from '../ml/checkpoint/initialCheckpoint.js'
import type {Checkpoint} from '../ml/checkpoint/types.js'
import {loadJobSpec} from '../ml/spec/loadJobSpec.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {TrainingSession} from '../ml/train/trainingSession.js'
import {
  arbitrationPayload,
  assembleTrace,
  canonicalTensorBytes,
  commitmentChain,
  DisputeTraceError,
  firstDivergence,
  graphHash,
  isDecidableOnchain,
  nextCommitment,
  traceStep,
  type OperatorDescriptor,
  type StepTrace,
} from './index.js'

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

/** Relu re-executed in plain JavaScript on the input bytes (float32: relu(x) = x > 0 ? x : +0, NaN stays NaN). */
function reluBytes(input: Hex): Uint8Array {
  const x = new Float32Array(hexToBytes(input).slice().buffer)
  const y = x.map((v) => (Number.isNaN(v) ? v : v > 0 ? v : 0))
  return canonicalTensorBytes(y, 'float32')
}

const maxOnchainElements = 4096

describe('arbitration', () => {
  let spec: JobSpec
  let state: Checkpoint
  let honest: StepTrace
  let corrupted: StepTrace
  let j: number

  before(async () => {
    spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    state = await stateAt(spec, 2)
    honest = await traceStep({spec, state})
    corrupted = await traceStep({spec, state, corruption: {step: 2, kernel: 'Relu', occurrence: 1, element: 100}})
    j = firstDivergence(honest, corrupted) as number
  })

  it('the payload for a disputed Relu element is decidable on chain and its inputs hash to the agreed outputs', () => {
    assert.equal(honest.elements[j - 1]?.descriptor.kernel, 'Relu')
    const payload = arbitrationPayload(honest, j)
    assert.deepEqual(payload.op, honest.elements[j - 1]?.descriptor)
    assert.equal(payload.op.inputs.length, 1)
    assert.equal(isDecidableOnchain(payload.op, maxOnchainElements), true)
    // what PinpointGame checks: the graph, c_{j-1} from o_1..o_{j-1}, and each input against its o
    assert.equal(payload.descriptorHashes.length, honest.opCount)
    assert.equal(graphHash(payload.descriptorHashes), honest.graphHash)
    assert.equal(payload.outputHashes.length, j - 1)
    const chain = commitmentChain(honest.stateHash, honest.step, payload.outputHashes)
    assert.equal(chain[j - 1], honest.commitments[j - 1])
    assert.equal(chain[j - 1], corrupted.commitments[j - 1], 'c_{j-1} is agreed')
    for (const [k, e] of payload.op.inputs.entries()) assert.equal(keccak256(payload.inputs[k] as Hex), payload.outputHashes[e - 1], `input ${k} is element ${e}`)
    // re-executing the operator on those inputs gives the honest c_j and not the corrupted one
    const o = keccak256(reluBytes(payload.inputs[0] as Hex))
    assert.equal(nextCommitment(chain[j - 1] as Hex, o), honest.commitments[j])
    assert.notEqual(nextCommitment(chain[j - 1] as Hex, o), corrupted.commitments[j])
    // both parties build the same payload from their own traces: everything in it is agreed
    assert.deepEqual(arbitrationPayload(corrupted, j), payload)
  })

  it('isDecidableOnchain: on-chain kernels, float32 only, every tensor within the limit', () => {
    const d = (kernel: string, shapes: number[][], out: number[], dtype = 'float32'): OperatorDescriptor => ({
      kernel,
      inputs: shapes.map((_, i) => i + 1),
      inputShapes: shapes,
      outputShape: out,
      outputDtype: dtype,
      attrs: '0x',
    })
    for (const kernel of ['Relu', 'Step', 'Neg', 'Identity']) assert.equal(isDecidableOnchain(d(kernel, [[64, 64]], [64, 64]), 4096), true, kernel)
    for (const kernel of ['Add', 'Sub', 'Multiply']) assert.equal(isDecidableOnchain(d(kernel, [[32, 10], [10]], [32, 10]), 4096), true, kernel)
    assert.equal(isDecidableOnchain(d('Reshape', [[32, 10]], [320]), 320), true)
    assert.equal(isDecidableOnchain(d('Reshape', [[32, 10]], [320]), 319), false, 'a tensor over the limit')
    assert.equal(isDecidableOnchain(d('Add', [[4097], []], [4097]), 4096), false)
    assert.equal(isDecidableOnchain(d('Add', [[1, 4097], [1]], [1]), 4096), false, 'an input over the limit')
    assert.equal(isDecidableOnchain(d('Relu', [[4]], [4], 'int32'), 4096), false, 'not float32')
    for (const kernel of ['Mul', 'Input', 'BatchMatMul', '_FusedMatMul', 'Cast', 'Exp', 'RealDiv', 'Conv2D']) assert.equal(isDecidableOnchain(d(kernel, [[2]], [2]), 4096), false, kernel)
    // in the traced MLP step: the first layer's big gradient product and the softmax are for the committee
    const byKernel = (k: string) => honest.elements.find((e) => e.descriptor.kernel === k)?.descriptor as OperatorDescriptor
    assert.equal(isDecidableOnchain(byKernel('Step'), maxOnchainElements), true)
    assert.equal(isDecidableOnchain(byKernel('BatchMatMul'), maxOnchainElements), false)
    assert.equal(isDecidableOnchain(byKernel('Exp'), maxOnchainElements), false)
  })

  it('firstDivergence: the first differing commitment, the state assembly, or none', () => {
    assert.equal(firstDivergence(honest, honest), null)
    const other = assembleTrace(honest.step, `0x${'00'.repeat(32)}`, honest.nextStateHash, honest.elements)
    assert.equal(firstDivergence(honest, other), 0, 'different starting states part at c_0')
    const reassembled = assembleTrace(honest.step, honest.stateHash, `0x${'00'.repeat(32)}`, honest.elements)
    assert.equal(firstDivergence(honest, reassembled), honest.opCount + 1, 'same outputs, other S_{i+1}: the state assembly question')
    const shorter = assembleTrace(honest.step, honest.stateHash, honest.nextStateHash, honest.elements.slice(0, 10))
    assert.equal(firstDivergence(honest, shorter), 11)
    assert.equal(firstDivergence(shorter, honest), 11)
  })

  it('refuses elements outside the trace', () => {
    for (const bad of [0, honest.opCount + 1, 1.5]) assert.throws(() => arbitrationPayload(honest, bad), DisputeTraceError)
    assert.equal(arbitrationPayload(honest, 1).op.kernel, 'Input')
    assert.deepEqual(arbitrationPayload(honest, 1).inputs, [])
  })
})
