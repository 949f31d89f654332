import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Hex} from 'viem'
import type {JobSpec} from '../ml/spec/schema.js'
import {specHash} from '../ml/spec/specHash.js'
import {splitTaskSpecs} from '../ml/spec/splitTaskSpecs.js'
import {tinySpec} from '../ml/train/testSpecs.js'
import {trainJob, type TrainResult} from '../ml/train/trainJob.js'
import {createLocalStore} from '../store/createLocalStore.js'
import type {BlobStore} from '../store/types.js'
import {ReplayError} from './errors.js'
import {finalCheckpointOf} from './finalCheckpointOf.js'
import type {ProofManifest} from '../ml/checkpoint/manifest.js'
import {merkleRoot, verifyMerkleProof} from '../ml/checkpoint/merkle.js'
import {stackedProof} from './stackedProof.js'
import {verifyProof} from './verifyProof.js'

const randomness: Hex = `0x${'cd'.repeat(32)}`

describe('verifyProof for split tasks and early stop', () => {
  let dir: string
  let store: BlobStore
  const job: JobSpec = {...tinySpec({steps: 60, interval: 10}), split: {tasks: 3}}
  const tasks = splitTaskSpecs(job)
  const proofs: TrainResult[] = []
  /** Stores a manifest made of `checkpoints` under `spec`'s hash (a solver presenting other checkpoints as this task's). */
  const present = (spec: JobSpec, base: ProofManifest, checkpoints: ProofManifest['checkpoints']) =>
    store.putJson({...base, specHash: specHash(spec), checkpoints, merkleRoot: merkleRoot(checkpoints.map((c) => c.hash))})

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-pol-task-'))
    store = createLocalStore(dir, {fsync: false})
    let start: Hex | undefined
    for (const spec of tasks) {
      const proof = await trainJob({spec, store, start: start === undefined ? undefined : {hash: start}})
      proofs.push(proof)
      start = finalCheckpointOf(proof.manifest).hash
    }
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('accepts each task of a split job, its first checkpoint the parent\'s final one', async () => {
    for (const [i, spec] of tasks.entries()) {
      const proof = proofs[i] as TrainResult
      const startCheckpoint = i === 0 ? undefined : finalCheckpointOf((proofs[i - 1] as TrainResult).manifest).hash
      const report = await verifyProof({spec, store, manifestHash: proof.manifestHash, randomness, segments: [0, 1], startCheckpoint})
      assert.equal(report.accepted, true, `task ${i}: ${report.reason}`)
      assert.deepEqual(report.segments.map((s) => [s.startStep, s.endStep]), [[20 * i, 20 * i + 10], [20 * i + 10, 20 * i + 20]], 'segments replay at absolute steps')
    }
  })

  it('rejects a split task that does not start from its parent\'s final checkpoint', async () => {
    const [, second] = tasks as [JobSpec, JobSpec]
    const proof = proofs[1] as TrainResult
    const wrong = finalCheckpointOf((proofs[0] as TrainResult).manifest).hash.replace(/.$/, (c) => (c === '0' ? '1' : '0')) as Hex
    const report = await verifyProof({spec: second, store, manifestHash: proof.manifestHash, randomness, startCheckpoint: wrong})
    assert.equal(report.accepted, false)
    assert.equal(report.checks.initialWeights, 'fail')
    assert.equal(report.reason, `checkpoint at step 20: expected the parent task's final checkpoint ${wrong}, got ${proof.checkpoints[0]?.hash}`)
    // a proof of the second task that starts at step 0 (the whole job's first 20 steps relabelled) is not on its schedule
    const fromZero = await present(second, proof.manifest, (proofs[0] as TrainResult).checkpoints)
    const shifted = await verifyProof({spec: second, store, manifestHash: fromZero, randomness})
    assert.equal(shifted.checks.manifest, 'fail')
    assert.equal(shifted.reason, 'manifest checkpoints: expected steps 20, 30, 40, got 0, 10, 20')
  })

  it('proves the stacking for commitProof: leaf 0 of the child is the last leaf of the parent', () => {
    const [parent, child] = proofs as [TrainResult, TrainResult]
    const stacked = stackedProof({parent: parent.manifest, child: child.manifest})
    assert.equal(stacked.startCheckpoint, parent.checkpoints.at(-1)?.hash)
    assert.equal(stacked.startCheckpoint, child.checkpoints[0]?.hash)
    assert.ok(verifyMerkleProof({root: child.proofRoot, leaf: stacked.startCheckpoint, index: 0, leafCount: child.checkpoints.length, proof: stacked.startProof}))
    assert.ok(
      verifyMerkleProof({root: parent.proofRoot, leaf: stacked.startCheckpoint, index: parent.checkpoints.length - 1, leafCount: parent.checkpoints.length, proof: stacked.parentFinalProof}),
    )
    assert.deepEqual(finalCheckpointOf(parent.manifest), {hash: parent.checkpoints[2]?.hash, step: 20, index: 2})
    assert.throws(() => stackedProof({parent: child.manifest, child: child.manifest}), (e: unknown) => e instanceof ReplayError && /child proof checkpoint 0: expected the parent's final checkpoint/.test(e.shortMessage))
  })

  describe('the stop rule', () => {
    const plain = tinySpec({steps: 60, interval: 10})
    const withTarget = (testAccuracy: number): JobSpec => ({...plain, training: {...plain.training, stopAt: {testAccuracy}}})
    let full: TrainResult
    let spec: JobSpec
    let stopped: TrainResult
    let stopStep: number

    before(async () => {
      full = await trainJob({spec: withTarget(1), store})
      const accuracies = full.accuracies.map((a) => a.testAccuracy)
      const index = accuracies.findIndex((a, i) => i > 0 && i < accuracies.length - 1 && a > Math.max(...accuracies.slice(0, i)))
      assert.ok(index > 0, `a checkpoint in the middle improves on the ones before it: ${accuracies.join(', ')}`)
      spec = withTarget(accuracies[index] as number)
      stopped = await trainJob({spec, store})
      stopStep = full.accuracies[index]?.step as number
      assert.equal(stopped.checkpoints.at(-1)?.step, stopStep)
    })

    it('accepts a proof that stops at the first checkpoint reaching the target, and one that never reaches it', async () => {
      const report = await verifyProof({spec, store, manifestHash: stopped.manifestHash, randomness})
      assert.equal(report.accepted, true, report.reason)
      assert.equal(report.checks.stopRule, 'pass')
      assert.deepEqual(report.accuracies, stopped.accuracies, 'the verifier measures what the solver measured, bit for bit')
      const never = await verifyProof({spec: withTarget(1), store, manifestHash: full.manifestHash, randomness})
      assert.equal(never.accepted, true, never.reason)
    })

    it('rejects a proof that goes on past the stop point, or stops before the target', async () => {
      const longer = await present(spec, stopped.manifest, full.checkpoints.filter((c) => c.step <= stopStep + 10))
      const past = await verifyProof({spec, store, manifestHash: longer, randomness})
      assert.equal(past.accepted, false)
      assert.equal(past.checks.replay, 'pass', 'every replay matches: only the rule is broken')
      assert.equal(past.checks.stopRule, 'fail')
      assert.match(past.reason ?? '', new RegExp(`^stop rule: checkpoint at step ${stopStep} reaches test accuracy [0-9.]+ >= training.stopAt.testAccuracy`))
      assert.ok(past.segments.some((s) => s.segment === full.checkpoints.filter((c) => c.step <= stopStep + 10).length - 2), 'the last segment was replayed')
      const wholeRange = await present(spec, stopped.manifest, full.checkpoints)
      assert.equal((await verifyProof({spec, store, manifestHash: wholeRange, randomness})).checks.stopRule, 'fail', 'training the whole range past the target')
      const shorter = await present(spec, stopped.manifest, full.checkpoints.filter((c) => c.step < stopStep))
      const early = await verifyProof({spec, store, manifestHash: shorter, randomness})
      assert.equal(early.checks.stopRule, 'fail')
      assert.match(early.reason ?? '', new RegExp(`^stop rule: the proof stops after ${stopStep - 10} of 60 steps at step ${stopStep - 10}, whose test accuracy [0-9.]+ is below`))
    })

    it('allows a shorter proof only with training.stopAt', async () => {
      const shorter = await present(plain, full.manifest, full.checkpoints.slice(0, 3))
      const report = await verifyProof({spec: plain, store, manifestHash: shorter, randomness})
      assert.equal(report.checks.manifest, 'fail')
      assert.equal(report.reason, 'manifest checkpoints: expected steps 0, 10, 20, 30, 40, 50, 60, got 0, 10, 20')
      const onlyStart = await present(spec, stopped.manifest, full.checkpoints.slice(0, 1))
      assert.equal((await verifyProof({spec, store, manifestHash: onlyStart, randomness})).checks.manifest, 'fail', 'a proof needs a checkpoint after its start')
    })
  })
})
