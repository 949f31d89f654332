import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Hex} from 'viem'
import {decodeCheckpoint} from '../ml/checkpoint/decodeCheckpoint.js'
import type {Checkpoint} from '../ml/checkpoint/types.js'
import {datasetHash} from '../ml/data/datasetHash.js'
import {loadJobSpec} from '../ml/spec/loadJobSpec.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {specHash} from '../ml/spec/specHash.js'
import {checkpointSchedule} from '../ml/train/checkpointSchedule.js'
import {tinySpec} from '../ml/train/testSpecs.js'
import {TrainingAbortedError} from '../ml/train/errors.js'
import {trainJob, type CheckpointRef} from '../ml/train/trainJob.js'
import {proofManifestSchema} from '../ml/checkpoint/manifest.js'
import {merkleRoot} from '../ml/checkpoint/merkle.js'
import {selectSegments} from '../pol/selectSegments.js'
import {verifyProof} from '../pol/verifyProof.js'
import {createLocalStore} from '../store/createLocalStore.js'
import type {BlobStore} from '../store/types.js'
import {cheat, type CheatParameters, type CheatResult} from './cheat.js'
import {copySourceSeed} from './copyProof.js'
import {detectionProbability} from '../plan/index.js'
import {AdversaryInputError} from './errors.js'
import {forgedSegments} from './forge.js'
import {noiseAmplitude, noisedCheckpoints} from './noise.js'
import {describeStrategy, type StrategyName} from './strategies.js'

const randomness: Hex = `0x${'ab'.repeat(32)}`
const blockHash = (i: number): Hex => `0x${createHash('sha256').update(`block ${i}`).digest('hex')}`

describe('cheat (adversary strategies on smoke-mlp)', () => {
  let dir: string
  let store: BlobStore
  let spec: JobSpec
  let schedule: number[]
  let allSegments: number[]
  let honest: CheatResult
  const read = async (hash: Hex): Promise<Checkpoint> => decodeCheckpoint(await store.get(hash))
  const hashAt = (result: CheatResult, step: number) => result.checkpoints.find((c) => c.step === step)?.hash as Hex
  const verify = (manifestHash: Hex, segments: number[] | number, r: Hex = randomness) => verifyProof({spec, store, manifestHash, randomness: r, segments})

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-adversary-'))
    store = createLocalStore(dir, {fsync: false})
    spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    schedule = checkpointSchedule(spec)
    allSegments = schedule.slice(1).map((_, i) => i)
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  /** Runs a strategy and checks that its proof is published exactly like trainJob's and is self-consistent. */
  async function produce(strategy: StrategyName, extra: Partial<CheatParameters> = {}): Promise<CheatResult> {
    const reported: CheckpointRef[] = []
    let stepsRun = 0
    const result = await cheat({strategy, spec, store, onStep: () => void stepsRun++, onCheckpoint: (c) => void reported.push(c), ...extra})
    assert.equal(result.strategy, strategy)
    assert.deepEqual(proofManifestSchema.parse(await store.getJson(result.manifestHash)), result.manifest, 'the stored manifest is well formed')
    assert.deepEqual(result.manifest.checkpoints, result.checkpoints)
    assert.deepEqual(result.checkpoints.map((c) => c.step), schedule)
    assert.equal(result.manifest.merkleRoot, merkleRoot(result.checkpoints.map((c) => c.hash)), 'the root recomputes')
    assert.equal(result.proofRoot, result.manifest.merkleRoot)
    assert.equal(result.manifest.specHash, specHash(spec))
    assert.equal(result.manifest.datasetHash, datasetHash(spec))
    assert.equal(result.manifest.checkpointInterval, spec.proof.checkpointInterval)
    assert.ok(await store.has(specHash(spec)), 'the spec blob is stored')
    assert.deepEqual(reported, result.checkpoints, 'onCheckpoint saw every committed checkpoint in order')
    for (const c of result.checkpoints) {
      const cp = await read(c.hash)
      assert.equal(cp.step, c.step)
      // the optimizer state has the real structure: adam's counters are the honest ones for that step
      const reference = await read(hashAt(honest, c.step))
      assert.deepEqual(cp.optimizer.type === 'adam' && [cp.optimizer.t, cp.optimizer.beta1Power, cp.optimizer.beta2Power], reference.optimizer.type === 'adam' && [reference.optimizer.t, reference.optimizer.beta1Power, reference.optimizer.beta2Power])
    }
    assert.equal(stepsRun, result.computeFraction * spec.training.steps, 'onStep ran once per training step counted in computeFraction')
    return result
  }

  /** Every faked segment rejects alone, all segments reject on the documented check, the others accept. */
  async function assertCaught(strategy: StrategyName, result: CheatResult): Promise<void> {
    const {failsCheck} = describeStrategy(strategy)
    const all = await verify(result.manifestHash, allSegments)
    assert.equal(all.accepted, false, `${strategy} is rejected when every segment is sampled`)
    assert.equal(all.inconclusive, false)
    assert.ok(failsCheck)
    assert.equal(all.checks[failsCheck], 'fail', all.reason)
    if (failsCheck !== 'replay') return
    const first = result.fakedSegments[0] as number
    assert.match(all.reason ?? '', new RegExp(`^segment ${first} \\(steps ${schedule[first]}-${schedule[first + 1]}\\)`))
    for (const segment of result.fakedSegments) {
      const alone = await verify(result.manifestHash, [segment])
      assert.equal(alone.accepted, false, `faked segment ${segment} is caught when it is sampled`)
      assert.equal(alone.checks.replay, 'fail')
    }
    const others = allSegments.filter((s) => !result.fakedSegments.includes(s))
    if (others.length > 0) {
      const missed = await verify(result.manifestHash, others)
      assert.equal(missed.accepted, true, `a sample of only the honest segments ${others.join(', ')} accepts it: ${missed.reason}`)
    }
  }

  it('honest: trainJob, accepted on every segment', async () => {
    let stepsRun = 0
    honest = await cheat({strategy: 'honest', spec, store, onStep: () => void stepsRun++})
    const trained = await trainJob({spec, store})
    assert.equal(honest.manifestHash, trained.manifestHash)
    assert.equal(honest.computeFraction, 1)
    assert.equal(stepsRun, spec.training.steps)
    assert.deepEqual(honest.fakedSegments, [])
    assert.equal(describeStrategy('honest').failsCheck, null)
    await produce('honest')
    const report = await verify(honest.manifestHash, allSegments)
    assert.equal(report.accepted, true, report.reason)
  })

  it('random-weights: no training, rejected by the initial-weights check before any replay', async () => {
    const result = await produce('random-weights')
    assert.equal(result.computeFraction, 0)
    assert.deepEqual(result.fakedSegments, allSegments)
    assert.ok(Number.isNaN(result.finalLoss))
    assert.notEqual(hashAt(result, 0), hashAt(honest, 0))
    await assertCaught('random-weights', result)
    const report = await verify(result.manifestHash, allSegments)
    assert.equal(report.checks.merkleRoot, 'pass')
    assert.equal(report.checks.replay, 'skipped')
    assert.deepEqual(report.segments, [])
    // its own seed decides the weights
    const other = await cheat({strategy: 'random-weights', spec, store, seed: 1})
    assert.notEqual(other.proofRoot, result.proofRoot)
  })

  it('skip-steps: half the steps, interpolated checkpoints, caught by the replay of any segment', async () => {
    const result = await produce('skip-steps')
    assert.equal(result.computeFraction, 0.5)
    assert.deepEqual(result.fakedSegments, allSegments)
    assert.equal(hashAt(result, 0), hashAt(honest, 0), 'step 0 is honest')
    // the committed final weights are the honest step-100 weights
    assert.deepEqual((await read(hashAt(result, 200))).weights, (await read(hashAt(honest, 100))).weights)
    await assertCaught('skip-steps', result)
  })

  it('wrong-data: every step on other samples, caught by the replay of any segment', async () => {
    const result = await produce('wrong-data')
    assert.equal(result.computeFraction, 1)
    assert.deepEqual(result.fakedSegments, allSegments)
    assert.equal(hashAt(result, 0), hashAt(honest, 0))
    assert.ok(result.checkpoints.slice(1).every((c) => c.hash !== hashAt(honest, c.step)))
    await assertCaught('wrong-data', result)
  })

  it('truncate: stops at half and pads, caught by the replay of a padded segment', async () => {
    const result = await produce('truncate')
    assert.equal(result.computeFraction, 0.5)
    assert.deepEqual(result.fakedSegments, [2, 3])
    for (const step of [0, 50, 100]) assert.equal(hashAt(result, step), hashAt(honest, step))
    const last = await read(hashAt(honest, 100))
    for (const step of [150, 200]) assert.deepEqual((await read(hashAt(result, step))).weights, last.weights, `step ${step} pads the step-100 weights`)
    await assertCaught('truncate', result)
  })

  it('noise: honest training with perturbed checkpoints, caught when a segment touching one is sampled', async () => {
    const result = await produce('noise')
    assert.equal(result.computeFraction, 1)
    const noised = noisedCheckpoints({segmentCount: 4, seed: 0})
    assert.equal(noised.length, 2)
    const expected = new Set(noised.flatMap((c) => (c < 4 ? [c - 1, c] : [c - 1])))
    assert.deepEqual(result.fakedSegments, [...expected].sort((a, b) => a - b))
    for (const [index, step] of schedule.entries()) {
      if (!noised.includes(index)) {
        assert.equal(hashAt(result, step), hashAt(honest, step), `checkpoint ${index} is honest`)
        continue
      }
      const a = (await read(hashAt(result, step))).weights
      const b = (await read(hashAt(honest, step))).weights
      let largest = 0
      for (const [i, t] of a.entries()) for (const [j, x] of t.values.entries()) largest = Math.max(largest, Math.abs(x - (b[i]?.values[j] as number)))
      assert.ok(largest > 0 && largest <= noiseAmplitude * 1.001, `checkpoint ${index} moved by at most ${noiseAmplitude}, got ${largest}`)
    }
    await assertCaught('noise', result)
  })

  it('works the same on an sgd job: every faked segment is caught, the others replay', async () => {
    const sgd = tinySpec({optimizer: 'sgd', steps: 60, interval: 20})
    const segments = [0, 1, 2]
    for (const strategy of ['random-weights', 'skip-steps', 'wrong-data', 'truncate', 'noise', 'forge'] as const) {
      const result = await cheat({strategy, spec: sgd, store})
      assert.equal(result.manifest.merkleRoot, merkleRoot(result.checkpoints.map((c) => c.hash)))
      for (const c of result.checkpoints) assert.deepEqual((await read(c.hash)).optimizer, {type: 'sgd'})
      assert.ok(result.fakedSegments.length > 0, strategy)
      for (const segment of result.fakedSegments) {
        const report = await verifyProof({spec: sgd, store, manifestHash: result.manifestHash, randomness, segments: [segment]})
        assert.equal(report.accepted, false, `${strategy}: segment ${segment}`)
      }
      const others = segments.filter((s) => !result.fakedSegments.includes(s))
      if (others.length > 0 && strategy !== 'random-weights') {
        const report = await verifyProof({spec: sgd, store, manifestHash: result.manifestHash, randomness, segments: others})
        assert.equal(report.accepted, true, `${strategy}: ${report.reason}`)
      }
    }
  })

  describe('copy', () => {
    it("trains another seed's proof and presents it: rejected by the initial-weights check", async () => {
      const result = await produce('copy')
      assert.equal(result.computeFraction, 1)
      assert.deepEqual(result.fakedSegments, allSegments)
      await assertCaught('copy', result)
    })

    it('presents an existing manifest (copyFrom) at no compute', async () => {
      const sourceSpec = {...spec, training: {...spec.training, seed: copySourceSeed(spec, 0)}}
      const source = await trainJob({spec: sourceSpec, store})
      const result = await produce('copy', {copyFrom: source.manifestHash})
      assert.equal(result.computeFraction, 0)
      assert.deepEqual(result.checkpoints, source.checkpoints)
      assert.deepEqual(result.runtime, source.runtime)
      assert.deepEqual(result.fakedSegments, allSegments)
      await assertCaught('copy', result)
      // presented as it is, the other job's manifest fails the spec hash check
      const verbatim = await verify(source.manifestHash, allSegments)
      assert.equal(verbatim.checks.specHash, 'fail')
    })

    it('is accepted when the source trained exactly this job (the honest limit: identical work)', async () => {
      const twin = {...spec, name: 'smoke-mlp-twin', payment: {...spec.payment, maxPrice: '0.00003'}}
      const source = await trainJob({spec: twin, store})
      assert.notEqual(specHash(twin), specHash(spec))
      const result = await produce('copy', {copyFrom: source.manifestHash})
      assert.deepEqual(result.fakedSegments, [])
      assert.equal(result.manifestHash, honest.manifestHash, 'byte for byte the honest proof')
      assert.equal((await verify(result.manifestHash, allSegments)).accepted, true)
    })

    it('refuses a copy source that is not a usable manifest', async () => {
      const missing: Hex = `0x${'77'.repeat(32)}`
      await assert.rejects(cheat({strategy: 'copy', spec, store, copyFrom: missing}), (e: AdversaryInputError) => {
        assert.ok(e instanceof AdversaryInputError)
        assert.equal(e.exitCode, 2)
        assert.equal(e.shortMessage, `copyFrom: no manifest ${missing} in the store`)
        return true
      })
      await assert.rejects(cheat({strategy: 'copy', spec, store, copyFrom: specHash(spec)}), /copyFrom: blob 0x[0-9a-f]{64} is not a proof manifest \(/)
      const ghost = await store.putJson({...honest.manifest, checkpoints: [...honest.checkpoints.slice(0, 4), {step: 200, hash: missing}]})
      await assert.rejects(cheat({strategy: 'copy', spec, store, copyFrom: ghost}), /names checkpoint 0x7777.* \(step 200\), which is not in the store/)
      await assert.rejects(cheat({strategy: 'forge', spec, store, copyFrom: honest.manifestHash}), /^AdversaryInputError: copyFrom: only the copy strategy takes a source proof, got strategy forge/)
      await assert.rejects(cheat({strategy: 'copy', spec, store, copyFrom: '0xABC' as Hex}), /copyFrom: expected a manifest hash/)
    })
  })

  describe('forge', () => {
    let result: CheatResult

    it('passes every check but the replay of a forged segment', async () => {
      result = await produce('forge')
      const faked = forgedSegments({segmentCount: 4, seed: 0})
      assert.deepEqual(result.fakedSegments, faked)
      assert.equal(faked.length, 2, 'ceil(3 / 2) of the first three segments')
      assert.ok(!faked.includes(3), 'the always-sampled last segment is trained')
      // (honest segments' steps + one probe step per forged segment) / steps
      assert.equal(result.computeFraction, (2 * 50 + 2) / 200)
      assert.equal(hashAt(result, 0), hashAt(honest, 0))
      await assertCaught('forge', result)
      const all = await verify(result.manifestHash, allSegments)
      for (const check of ['manifest', 'specHash', 'datasetHash', 'merkleRoot', 'availability', 'initialWeights', 'runtime'] as const)
        assert.equal(all.checks[check], 'pass', check)
    })

    it("is accepted by the job's own sampling whenever the chain's randomness misses the forged segments", async () => {
      const sampled = spec.verification.segments
      const probability = detectionProbability({segmentCount: 4, sampled, faked: result.fakedSegments.length, fakedIncludesFinal: result.fakedSegments.includes(3)})
      assert.ok(Math.abs(probability - 2 / 3) < 1e-12, `${probability}`)
      const hits = (r: Hex) => selectSegments({randomness: r, segmentCount: 4, count: sampled}).some((s) => result.fakedSegments.includes(s))
      const indices = Array.from({length: 60}, (_, i) => i)
      const missing = blockHash(indices.find((i) => !hits(blockHash(i))) as number)
      const hitting = blockHash(indices.find((i) => hits(blockHash(i))) as number)
      const lucky = await verifyProof({spec, store, manifestHash: result.manifestHash, randomness: missing})
      assert.equal(lucky.accepted, true, `randomness ${missing} samples ${lucky.selectedSegments.join(', ')}: ${lucky.reason}`)
      assert.equal(lucky.selectedSegments.length, sampled)
      const caught = await verifyProof({spec, store, manifestHash: result.manifestHash, randomness: hitting})
      assert.equal(caught.accepted, false)
      assert.equal(caught.checks.replay, 'fail')
    })

    it('chooses the forged segments with its own seed only', () => {
      const choices = new Set<string>()
      for (let seed = 0; seed < 40; seed++) {
        const faked = forgedSegments({segmentCount: 9, seed})
        assert.equal(faked.length, 4)
        assert.ok(faked.every((s) => Number.isInteger(s) && s >= 0 && s < 8))
        assert.deepEqual(faked, forgedSegments({segmentCount: 9, seed}))
        choices.add(faked.join(','))
      }
      assert.ok(choices.size > 20, `40 seeds gave ${choices.size} different choices`)
      assert.deepEqual(forgedSegments({segmentCount: 1, seed: 0}), [], 'a one-segment job cannot be forged')
    })

    it('stops when aborted', async () => {
      const controller = new AbortController()
      controller.abort()
      await assert.rejects(cheat({strategy: 'forge', spec, store, signal: controller.signal}), TrainingAbortedError)
      await assert.rejects(cheat({strategy: 'random-weights', spec, store, signal: controller.signal}), TrainingAbortedError)
    })
  })
})
