import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import * as tf from '@tensorflow/tfjs'
import type {Hex} from 'viem'
import {selectBackend} from '../ml/backend/selectBackend.js'
import {checkpointHash} from '../ml/checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import {initialCheckpoint} from '../ml/checkpoint/initialCheckpoint.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {TrainingAbortedError} from '../ml/train/errors.js'
import {tinySpec} from '../ml/train/testSpecs.js'
import {trainJob, type TrainResult} from '../ml/train/trainJob.js'
import {TrainingSession} from '../ml/train/trainingSession.js'
import {createLocalStore} from '../store/createLocalStore.js'
import type {BlobStore} from '../store/types.js'
import {DisputeTraceError, segmentStateHashes, stateAtStep} from './index.js'

describe('segmentStateHashes / stateAtStep', () => {
  let dir: string
  let store: BlobStore
  let spec: JobSpec
  let proof: TrainResult
  /** The hash of the honest state after every step 0..steps, from one uninterrupted run. */
  const reference: Hex[] = []

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-dispute-states-'))
    store = createLocalStore(dir, {fsync: false})
    spec = tinySpec({optimizer: 'sgd', steps: 7, interval: 3})
    proof = await trainJob({spec, store})
    await selectBackend('wasm')
    const session = new TrainingSession(spec)
    try {
      session.load(initialCheckpoint(spec))
      reference.push(checkpointHash(encodeCheckpoint(await session.snapshot())))
      for (let step = 1; step <= spec.training.steps; step++) {
        await session.run(step)
        reference.push(checkpointHash(encodeCheckpoint(await session.snapshot())))
      }
    } finally {
      session.dispose()
    }
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('gives the state hash after every step of each segment, start and end included', async () => {
    assert.deepEqual(proof.checkpoints.map((c) => c.step), [0, 3, 6, 7])
    for (const segment of [0, 1, 2]) {
      const {steps, hashes} = await segmentStateHashes({spec, store, manifest: proof.manifest, segment})
      const start = proof.checkpoints[segment]!
      const end = proof.checkpoints[segment + 1]!
      assert.deepEqual(steps, Array.from({length: end.step - start.step + 1}, (_, k) => start.step + k))
      assert.equal(hashes[0], start.hash)
      assert.equal(hashes[hashes.length - 1], end.hash)
      assert.deepEqual(hashes, reference.slice(start.step, end.step + 1))
    }
  })

  it('re-executes on wasm whatever backend is active', async () => {
    await selectBackend('cpu')
    const {hashes} = await segmentStateHashes({spec, store, manifest: proof.manifest, segment: 1})
    assert.equal(tf.getBackend(), 'wasm')
    assert.deepEqual(hashes, reference.slice(3, 7))
  })

  it('stateAtStep: the state at any step of a segment', async () => {
    for (const step of [3, 4, 5, 6]) {
      const state = await stateAtStep({spec, store, manifest: proof.manifest, segment: 1, step})
      assert.equal(state.step, step)
      assert.equal(checkpointHash(encodeCheckpoint(state)), reference[step])
    }
  })

  it("re-executes a later split task's segment from its own start, at the job's step numbers", async () => {
    // the same job with 6 steps split in two: the states are this job's (batches follow the seed and the step)
    const job: JobSpec = {...tinySpec({optimizer: 'sgd', steps: 6, interval: 3}), split: {tasks: 2}}
    const first = await trainJob({spec: {...job, split: {tasks: 2, index: 0}}, store})
    const second = await trainJob({spec: {...job, split: {tasks: 2, index: 1}}, store, start: {hash: first.checkpoints.at(-1)!.hash}})
    assert.deepEqual(second.checkpoints.map((c) => c.step), [3, 6])
    const {steps, hashes} = await segmentStateHashes({spec: {...job, split: {tasks: 2, index: 1}}, store, manifest: second.manifest, segment: 0})
    assert.deepEqual(steps, [3, 4, 5, 6])
    assert.deepEqual(hashes, reference.slice(3, 7))
    const state = await stateAtStep({spec: {...job, split: {tasks: 2, index: 1}}, store, manifest: second.manifest, segment: 0, step: 5})
    assert.equal(checkpointHash(encodeCheckpoint(state)), reference[5])
  })

  it('refuses segments and steps outside the proof, and stops when aborted', async () => {
    const manifest = proof.manifest
    await assert.rejects(segmentStateHashes({spec, store, manifest, segment: 3}), (e: unknown) => e instanceof DisputeTraceError && e.shortMessage === 'segment: expected an integer in [0, 2], got 3')
    await assert.rejects(stateAtStep({spec, store, manifest, segment: 1, step: 7}), /step: expected an integer in \[3, 6\] \(segment 1\), got 7/)
    await assert.rejects(stateAtStep({spec, store, manifest, segment: 1, step: 2}), DisputeTraceError)
    await assert.rejects(segmentStateHashes({spec, store, manifest, segment: 0, signal: AbortSignal.abort()}), TrainingAbortedError)
    const missing = {...manifest, checkpoints: manifest.checkpoints.map((c, i) => (i === 1 ? {...c, hash: `0x${'99'.repeat(32)}` as Hex} : c))}
    await assert.rejects(segmentStateHashes({spec, store, manifest: missing, segment: 1}), /blob not found/)
  })
})
