import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import * as tf from '@tensorflow/tfjs'
import {selectBackend} from '../ml/backend/selectBackend.js'
import {checkpointHash} from '../ml/checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import {initialCheckpoint} from '../ml/checkpoint/initialCheckpoint.js'
import type {Checkpoint} from '../ml/checkpoint/types.js'
import {loadJobSpec} from '../ml/spec/loadJobSpec.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {tinySpec} from '../ml/train/testSpecs.js'
import {trainJob} from '../ml/train/trainJob.js'
import {TrainingSession} from '../ml/train/trainingSession.js'
import {createLocalStore} from '../store/createLocalStore.js'
import {
  firstDivergence,
  kernelElement,
  OperatorCorruptionError,
  propagatingCorruption,
  segmentStateHashes,
  stateAtStep,
  traceStep,
  trainJobWithOperatorCorruption,
  withOperatorCorruption,
  type OperatorCorruption,
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

/** The flat indices of the 32-bit words where two byte strings differ, with the xor of each. */
function wordDiff(a: Uint8Array, b: Uint8Array): {index: number; xor: number}[] {
  const x = new Uint32Array(a.slice().buffer)
  const y = new Uint32Array(b.slice().buffer)
  const out: {index: number; xor: number}[] = []
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) out.push({index: i, xor: ((x[i] as number) ^ (y[i] as number)) >>> 0})
  return out
}

describe('corruptOperator (TEST-ONLY adversary)', () => {
  let spec: JobSpec
  let state: Checkpoint
  let honest: StepTrace

  before(async () => {
    spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    state = await stateAt(spec, 3)
    honest = await traceStep({spec, state})
  })

  /** Traces the corrupted step and checks it parts from the honest trace exactly at that kernel call's output. */
  async function assertDivergesAt(corruption: OperatorCorruption, reachesState = true): Promise<StepTrace> {
    const corrupted = await traceStep({spec, state, corruption})
    const j = kernelElement(honest, corruption.kernel, corruption.occurrence)
    assert.equal(firstDivergence(honest, corrupted), j, `the traces part at element ${j} (${corruption.kernel} #${corruption.occurrence})`)
    assert.equal(corrupted.graphHash, honest.graphHash, 'a value corruption leaves the operator graph as it is')
    assert.deepEqual(corrupted.commitments.slice(0, j), honest.commitments.slice(0, j))
    assert.notEqual(corrupted.commitments[j], honest.commitments[j])
    assert.deepEqual(wordDiff(honest.elements[j - 1]!.data, corrupted.elements[j - 1]!.data), [{index: corruption.element, xor: 1}], 'one low mantissa bit flipped')
    assert.equal(corrupted.nextStateHash !== honest.nextStateHash, reachesState, `the corruption ${reachesState ? 'reaches' : 'is absorbed before'} the next state`)
    assert.notEqual(corrupted.finalClaim, honest.finalClaim)
    return corrupted
  }

  it('Relu, 1st call: the corrupted trace diverges first at exactly that Relu element', async () => {
    const corruption = {step: 3, kernel: 'Relu', occurrence: 1, element: propagatingCorruption(honest, 'Relu').corruption.element}
    const corrupted = await assertDivergesAt(corruption)
    // the same corruption during plain (untraced) training reaches the same next state
    await selectBackend('wasm')
    const session = new TrainingSession(spec)
    try {
      session.load(state)
      await withOperatorCorruption(corruption, () => session.step, () => session.run(4))
      assert.equal(checkpointHash(encodeCheckpoint(await session.snapshot())), corrupted.nextStateHash)
    } finally {
      session.dispose()
    }
  })

  it('BatchMatMul, 1st call (the first layer product): diverges first at exactly that element', async () => {
    await assertDivergesAt({step: 3, kernel: 'BatchMatMul', occurrence: 1, element: propagatingCorruption(honest, 'BatchMatMul').corruption.element})
  })

  it('the last Sub (the update of the last bias, part of the state itself) diverges at the last element', async () => {
    const subs = honest.elements.filter((e) => e.descriptor.kernel === 'Sub').length
    const corrupted = await assertDivergesAt({step: 3, kernel: 'Sub', occurrence: subs, element: 0})
    assert.equal(firstDivergence(honest, corrupted), honest.opCount)
  })

  it('an operator only the loss value reads (Multiply #1: labels x log-softmax) changes the trace, not the state', async () => {
    // the trace still parts there; with S_{i+1} agreed, no Steps bisection ever reaches this step
    await assertDivergesAt({step: 3, kernel: 'Multiply', occurrence: 1, element: propagatingCorruption(honest, 'Multiply').corruption.element}, false)
  })

  it('refuses corruptions it cannot apply, and leaves the kernels as they were', async () => {
    const before = new Map(tf.getKernelsForBackend('wasm').map((k) => [k.kernelName, k]))
    const session = new TrainingSession(spec)
    try {
      session.load(state)
      await assert.rejects(
        withOperatorCorruption({step: 3, kernel: 'Relu', occurrence: 2, element: 0}, () => session.step, () => session.run(4)),
        (e: unknown) => e instanceof OperatorCorruptionError && e.shortMessage === 'corruption: expected Relu to be called at least 2 times during step 3, it was not',
      )
    } finally {
      session.dispose()
    }
    await assert.rejects(traceStep({spec, state, corruption: {step: 3, kernel: 'Reshape', occurrence: 1, element: 0}}), /expected an output with its own buffer, got one shared with input x/)
    await assert.rejects(traceStep({spec, state, corruption: {step: 3, kernel: 'Relu', occurrence: 0, element: 0}}), /corruption.occurrence: expected an integer >= 1, got 0/)
    await assert.rejects(traceStep({spec, state, corruption: {step: 3, kernel: 'Relu', occurrence: 1, element: 0, output: 1}}), /expected output 1 to exist, the kernel has 1/)
    const after = new Map(tf.getKernelsForBackend('wasm').map((k) => [k.kernelName, k]))
    for (const [name, config] of before) assert.equal(after.get(name), config, name)
  })

  describe('a solver that trains with it', () => {
    let dir: string
    after(async () => {
      if (dir) await rm(dir, {recursive: true, force: true})
    })

    it('commits a proof whose segment diverges from the honest replay at exactly that operator', async () => {
      dir = await mkdtemp(join(tmpdir(), 'gensyn-dispute-'))
      const store = createLocalStore(dir, {fsync: false})
      const job = tinySpec({steps: 6, interval: 3})
      const honestRun = await trainJob({spec: job, store})
      const corruption = {step: 4, kernel: 'Relu', occurrence: 1, element: propagatingCorruption(await traceStep({spec: job, state: await stateAt(job, 4)}), 'Relu').corruption.element}
      const cheat = await trainJobWithOperatorCorruption({spec: job, store, corruption})
      assert.deepEqual(cheat.checkpoints.slice(0, 2), honestRun.checkpoints.slice(0, 2), 'checkpoints before the corrupted step are honest')
      assert.notEqual(cheat.checkpoints[2]?.hash, honestRun.checkpoints[2]?.hash, 'the segment holding step 4 ends elsewhere')
      // Steps rounds: the honest replay of the committed segment vs the cheater's own re-execution
      const segment = {spec: job, store, manifest: cheat.manifest, segment: 1}
      const replay = await segmentStateHashes(segment)
      const claimed = await segmentStateHashes({...segment, corruption})
      assert.deepEqual(replay.steps, [3, 4, 5, 6])
      assert.deepEqual(claimed.steps, [3, 4, 5, 6])
      assert.equal(claimed.hashes[3], cheat.checkpoints[2]?.hash, "the cheater's re-execution reproduces its committed end")
      assert.equal(replay.hashes[3], honestRun.checkpoints[2]?.hash)
      const firstDisputed = replay.hashes.findIndex((h, k) => h !== claimed.hashes[k])
      assert.equal(replay.steps[firstDisputed], 5, 'states agree up to step 4 and differ from step 5 on')
      // Operators rounds on step 4: the traces from the agreed S_4 part at the corrupted Relu
      const agreed = await stateAtStep({...segment, step: 4})
      assert.equal(checkpointHash(encodeCheckpoint(agreed)), replay.hashes[1])
      assert.deepEqual(await stateAtStep({...segment, step: 4, corruption}), agreed, 'the corruption at step 4 is not in S_4')
      const honestTrace = await traceStep({spec: job, state: agreed})
      const cheatTrace = await traceStep({spec: job, state: agreed, corruption})
      assert.equal(honestTrace.nextStateHash, replay.hashes[2])
      assert.equal(cheatTrace.nextStateHash, claimed.hashes[2])
      assert.equal(firstDivergence(honestTrace, cheatTrace), kernelElement(honestTrace, 'Relu', 1))
    })
  })
})
