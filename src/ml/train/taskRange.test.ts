import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Hex} from 'viem'
import {createLocalStore} from '../../store/createLocalStore.js'
import type {BlobStore} from '../../store/types.js'
import {decodeCheckpoint} from '../checkpoint/decodeCheckpoint.js'
import {evaluateCheckpoint} from '../evaluate/evaluateCheckpoint.js'
import type {JobSpec} from '../spec/schema.js'
import {specHash} from '../spec/specHash.js'
import {splitTaskSpecs} from '../spec/splitTaskSpecs.js'
import {checkpointSchedule} from './checkpointSchedule.js'
import {ResumeError, StartCheckpointError} from './errors.js'
import {stopRuleProblem} from './stopRule.js'
import {taskStepRange} from './taskStepRange.js'
import {tinySpec} from './testSpecs.js'
import {trainJob, type TrainResult} from './trainJob.js'

// adam and dropout: the state a task hands on includes t, the beta products and the moments, and the dropout
// masks and batches are drawn by absolute step, so any offset or lost bit shows in the hashes
const layers = '[{type: dense, units: 16, activation: relu}, {type: dropout, rate: 0.25}, {type: dense, units: 10, activation: softmax}]'
const job: JobSpec = {...tinySpec({steps: 60, interval: 10, layers}), split: {tasks: 3}}

describe('split tasks and early stop', () => {
  let dir: string
  let store: BlobStore
  let unsplit: TrainResult
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-task-range-'))
    store = createLocalStore(dir, {fsync: false})
    unsplit = await trainJob({spec: job, store})
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('checkpoints each task at the absolute steps of its range', () => {
    const [a, b, c] = splitTaskSpecs(job) as [JobSpec, JobSpec, JobSpec]
    assert.deepEqual(checkpointSchedule(job), [0, 10, 20, 30, 40, 50, 60], 'the job file is the whole job')
    assert.deepEqual([a, b, c].map((task) => checkpointSchedule(task)), [[0, 10, 20], [20, 30, 40], [40, 50, 60]])
    assert.deepEqual(checkpointSchedule({...tinySpec({steps: 50, interval: 20})}), [0, 20, 40, 50], 'an unsplit job ends on its last step')
  })

  it('trains a 3-task split, each task from the one before\'s final checkpoint, to the unsplit run\'s checkpoints bit for bit', async () => {
    const tasks = splitTaskSpecs(job)
    const results: TrainResult[] = []
    const steps: number[] = []
    let start: Hex | undefined
    for (const task of tasks) {
      const result = await trainJob({spec: task, store, start: start === undefined ? undefined : {hash: start}, onStep: (step) => steps.push(step)})
      results.push(result)
      start = result.checkpoints.at(-1)?.hash
    }
    assert.deepEqual(steps, Array.from({length: 60}, (_, i) => i + 1), 'every step ran once, numbered as in the job')
    assert.deepEqual(results.map((r) => r.totalSteps), [20, 20, 20])
    assert.deepEqual(results.map((r) => r.stoppedEarly), [false, false, false])
    // the stacked checkpoints: each task's first is the one before's last
    const stacked = [results[0]?.checkpoints[0], ...results.flatMap((r) => r.checkpoints.slice(1))]
    assert.deepEqual(stacked, unsplit.checkpoints, 'every checkpoint, intermediate ones included, equals the unsplit run\'s')
    for (const [i, r] of results.entries()) {
      assert.deepEqual(r.manifest.checkpoints.map((c) => c.step), checkpointSchedule(tasks[i] as JobSpec))
      assert.equal(r.manifest.specHash, specHash(tasks[i] as JobSpec), 'each proof is for its own task spec')
      if (i > 0) assert.equal(r.checkpoints[0]?.hash, results[i - 1]?.checkpoints.at(-1)?.hash, `task ${i} starts from task ${i - 1}'s final checkpoint`)
    }
    const final = results.at(-1)?.checkpoints.at(-1)?.hash
    assert.equal(final, unsplit.checkpoints.at(-1)?.hash, 'the final model is the unsplit run\'s, bitwise')
    const last = decodeCheckpoint(await store.get(final as Hex))
    assert.equal(last.step, 60)
    assert.equal(last.optimizer.type === 'adam' && last.optimizer.t, 60)
  })

  it('needs the parent\'s final checkpoint, at the range\'s first step, to train a later task', async () => {
    const [first, second] = splitTaskSpecs(job) as [JobSpec, JobSpec]
    await assert.rejects(
      trainJob({spec: second, store}),
      (e: unknown) => e instanceof StartCheckpointError && e.shortMessage === "start: task 1 of 3 trains steps 20-40; expected the parent task's final checkpoint (step 20), got none",
    )
    const at10 = unsplit.checkpoints[1] as {hash: Hex}
    await assert.rejects(
      trainJob({spec: second, store, start: at10}),
      (e: unknown) => e instanceof StartCheckpointError && e.shortMessage === `start: checkpoint ${at10.hash} is at step 10, expected step 20 (task 1 of 3 starts there)`,
    )
    await assert.rejects(trainJob({spec: second, store, start: {hash: `0x${'12'.repeat(32)}`}}), /start: checkpoint 0x1212.*: blob not found/)
    await assert.rejects(trainJob({spec: first, store, start: at10}), /start: task 0 of 3 starts at step 0 from the seed-derived initial state 0x[0-9a-f]{64}, got 0x/)
  })

  it('resumes a split task inside its range', async () => {
    const [, second] = splitTaskSpecs(job) as [JobSpec, JobSpec]
    const start = {hash: unsplit.checkpoints[2]?.hash as Hex}
    const whole = await trainJob({spec: second, store, start})
    const at30 = whole.checkpoints[1] as {step: number; hash: Hex}
    assert.equal(at30.step, 30)
    const resumed = await trainJob({spec: second, store, start, resume: {...at30, checkpoints: whole.checkpoints.slice(0, 2)}})
    assert.equal(resumed.manifestHash, whole.manifestHash)
    const recomputed = await trainJob({spec: second, store, start, resume: at30})
    assert.equal(recomputed.manifestHash, whole.manifestHash, 'the prefix is recomputed from the task\'s start')
    await assert.rejects(trainJob({spec: second, store, start, resume: {...at30, step: 10}}), (e: unknown) => e instanceof ResumeError && /expected a checkpoint step of the task \(20, 30, 40/.test(e.shortMessage))
  })

  describe('early stop (training.stopAt)', () => {
    const plain = tinySpec({steps: 60, interval: 10})
    const withTarget = (testAccuracy: number): JobSpec => ({...plain, training: {...plain.training, stopAt: {testAccuracy}}})
    let measured: TrainResult

    it('trains to the end and measures every checkpoint when the target is never reached', async () => {
      measured = await trainJob({spec: withTarget(1), store})
      const full = await trainJob({spec: plain, store})
      assert.equal(measured.stoppedEarly, false)
      assert.equal(measured.totalSteps, 60)
      assert.deepEqual(measured.checkpoints, full.checkpoints, 'the target does not change training')
      assert.deepEqual(full.accuracies, [], 'nothing is evaluated without stopAt')
      assert.deepEqual(measured.accuracies.map((a) => a.step), [10, 20, 30, 40, 50, 60], 'every checkpoint after the start')
      assert.ok(measured.accuracies.every((a) => a.testAccuracy < 1))
      // the accuracy the rule uses is evaluateCheckpoint's on the training runtime
      const at30 = await evaluateCheckpoint({spec: plain, checkpoint: await store.get(measured.checkpoints[3]?.hash as Hex)})
      assert.equal(measured.accuracies[2]?.testAccuracy, at30.testAccuracy)
      assert.equal(stopRuleProblem({spec: withTarget(1), accuracies: measured.accuracies, totalSteps: 60, maxSteps: 60}), undefined)
    })

    it('stops at the first checkpoint that reaches the target, and not before', async () => {
      // a target the run reaches in the middle: the first checkpoint that beats every earlier one, before the last
      const accuracies = measured.accuracies.map((a) => a.testAccuracy)
      const index = accuracies.findIndex((a, i) => i > 0 && i < accuracies.length - 1 && a > Math.max(...accuracies.slice(0, i)))
      assert.ok(index > 0, `a checkpoint in the middle improves on the ones before it: ${accuracies.join(', ')}`)
      const target = accuracies[index] as number
      const stopStep = measured.accuracies[index]?.step as number
      const stopped = await trainJob({spec: withTarget(target), store})
      assert.equal(stopped.stoppedEarly, true)
      assert.equal(stopped.checkpoints.at(-1)?.step, stopStep, `stops at step ${stopStep}, where accuracy ${target} is first reached`)
      assert.equal(stopped.totalSteps, stopStep)
      assert.deepEqual(stopped.checkpoints, measured.checkpoints.slice(0, index + 2), 'the manifest ends at the stopping checkpoint')
      assert.deepEqual(stopped.manifest.checkpoints, stopped.checkpoints)
      assert.deepEqual(stopped.accuracies, measured.accuracies.slice(0, index + 1))
      assert.ok(stopped.accuracies.slice(0, -1).every((a) => a.testAccuracy < target), 'no earlier checkpoint reached it')
      assert.equal(stopRuleProblem({spec: withTarget(target), accuracies: stopped.accuracies, totalSteps: stopStep, maxSteps: 60}), undefined)
      // the rule as a verifier applies it: stopping one checkpoint later or earlier is a violation
      assert.match(
        stopRuleProblem({spec: withTarget(target), accuracies: measured.accuracies.slice(0, index + 2), totalSteps: stopStep + 10, maxSteps: 60}) ?? '',
        new RegExp(`^stop rule: checkpoint at step ${stopStep} reaches test accuracy`),
      )
      assert.match(
        stopRuleProblem({spec: withTarget(target), accuracies: measured.accuracies.slice(0, index), totalSteps: stopStep - 10, maxSteps: 60}) ?? '',
        /^stop rule: the proof stops after \d+ of 60 steps at step \d+, whose test accuracy .* is below/,
      )
      // a crash after the stopping checkpoint was stored: the resumed run ends there too
      const resumed = await trainJob({spec: withTarget(target), store, resume: {...(stopped.checkpoints.at(-1) as {step: number; hash: Hex}), checkpoints: stopped.checkpoints}})
      assert.equal(resumed.manifestHash, stopped.manifestHash)
    })

    it('stops a split task inside its own range', async () => {
      const target = Math.max(...measured.accuracies.slice(2, 4).map((a) => a.testAccuracy))
      // the second task (steps 20-40 of a 3-task split of a 60-step job) trained from the unsplit run's step 20
      const split = {...withTarget(target), split: {tasks: 3, index: 1}}
      assert.deepEqual(taskStepRange(split), {start: 20, end: 40})
      const result = await trainJob({spec: split, store, start: {hash: measured.checkpoints[2]?.hash as Hex}})
      const expectedStop = measured.accuracies.find((a) => a.step > 20 && a.testAccuracy >= target)?.step as number
      assert.equal(result.checkpoints.at(-1)?.step, expectedStop)
      assert.equal(result.totalSteps, expectedStop - 20)
      assert.equal(result.stoppedEarly, expectedStop < 40)
    })
  })
})
