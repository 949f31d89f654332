import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Hex} from 'viem'
import type {JobSpec} from '../ml/spec/schema.js'
import {splitTaskSpecs} from '../ml/spec/splitTaskSpecs.js'
import {checkpointSchedule} from '../ml/train/checkpointSchedule.js'
import {StartCheckpointError} from '../ml/train/errors.js'
import {tinySpec} from '../ml/train/testSpecs.js'
import {trainJob, type TrainResult} from '../ml/train/trainJob.js'
import {verifyProof} from '../pol/verifyProof.js'
import {createLocalStore} from '../store/createLocalStore.js'
import type {BlobStore} from '../store/types.js'
import {cheat} from './cheat.js'
import type {StrategyName} from './strategies.js'

const randomness: Hex = `0x${'ef'.repeat(32)}`

describe('cheat on a later task of a split job', () => {
  let dir: string
  let store: BlobStore
  // 4 segments per task: the strategies that fake half of them have something to fake
  const [first, second] = splitTaskSpecs({...tinySpec({steps: 80, interval: 10}), split: {tasks: 2}}) as [JobSpec, JobSpec]
  let parent: TrainResult
  let start: {hash: Hex}

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-adversary-split-'))
    store = createLocalStore(dir, {fsync: false})
    parent = await trainJob({spec: first, store})
    start = {hash: parent.checkpoints.at(-1)?.hash as Hex}
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  for (const strategy of ['honest', 'skip-steps', 'truncate', 'noise', 'forge', 'wrong-data'] as const satisfies readonly StrategyName[]) {
    it(`${strategy}: starts from the parent's final checkpoint, on the task's schedule, and its faked segments are caught`, async () => {
      const result = await cheat({strategy, spec: second, store, start})
      assert.deepEqual(result.checkpoints.map((c) => c.step), checkpointSchedule(second), 'absolute steps 40-80')
      assert.equal(result.checkpoints[0]?.hash, start.hash)
      assert.equal(result.totalSteps, 40)
      for (let segment = 0; segment < 4; segment++) {
        const report = await verifyProof({spec: second, store, manifestHash: result.manifestHash, randomness, segments: [segment], startCheckpoint: start.hash})
        assert.equal(report.accepted, !result.fakedSegments.includes(segment), `segment ${segment}: ${report.reason}`)
      }
      if (strategy === 'honest') assert.deepEqual(result.fakedSegments, [])
      else assert.ok(result.fakedSegments.length > 0)
    })
  }

  it('needs the start like trainJob does', async () => {
    await assert.rejects(cheat({strategy: 'forge', spec: second, store}), StartCheckpointError)
  })
})
