import assert from 'node:assert/strict'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {createLocalStore} from '../../store/createLocalStore.js'
import {checkpointHash} from '../checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../checkpoint/encodeCheckpoint.js'
import {initialCheckpoint} from '../checkpoint/initialCheckpoint.js'
import type {Checkpoint} from '../checkpoint/types.js'
import {createCheckpointWriter, type StoredCheckpoint} from './checkpointWriter.js'
import {tinySpec} from './testSpecs.js'

/** The job's initial state relabelled as step `step`, so each checkpoint has its own bytes. */
function checkpointAt(step: number): Checkpoint {
  const cp = initialCheckpoint(tinySpec({seed: step + 1}))
  return {...cp, step}
}

describe('createCheckpointWriter', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-writer-'))
  })
  afterEach(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('announces each checkpoint with its loss at the next boundary, in order, only once its bytes are in the store', async () => {
    const store = createLocalStore(dir)
    const announced: StoredCheckpoint[] = []
    const losses: (number | undefined)[] = []
    const writer = createCheckpointWriter(store, async (ref, loss) => {
      // on disk before anyone is told: the bytes read back and hash to the announced hash
      assert.equal(checkpointHash(await store.get(ref.hash)), ref.hash)
      announced.push(ref)
      losses.push(loss)
    })
    const states = [0, 20, 40].map(checkpointAt)
    await writer.add(states[0] as Checkpoint)
    assert.deepEqual(announced, [], 'the first checkpoint is still being written while the next interval trains')
    await writer.add(states[1] as Checkpoint, 2.25)
    assert.deepEqual(announced, [{step: 0, hash: checkpointHash(encodeCheckpoint(states[0] as Checkpoint))}])
    await writer.add(states[2] as Checkpoint, 1.5)
    await writer.flush()
    assert.deepEqual(
      announced,
      states.map((s) => ({step: s.step, hash: checkpointHash(encodeCheckpoint(s))})),
    )
    assert.deepEqual(losses, [undefined, 2.25, 1.5], "each with its own step's loss, not the last step's")
    await writer.flush()
    assert.equal(announced.length, 3, 'a second flush announces nothing again')
  })

  it('throws a failed write at the next boundary, not as an unhandled rejection meanwhile', async () => {
    // a store whose folder is a regular file: every write fails (ENOTDIR)
    const file = join(dir, 'not-a-folder')
    await writeFile(file, 'x')
    const announced: StoredCheckpoint[] = []
    const writer = createCheckpointWriter(createLocalStore(file), async (ref) => void announced.push(ref))
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      await writer.add(checkpointAt(0))
      await new Promise((resolve) => setTimeout(resolve, 50))
      await assert.rejects(writer.add(checkpointAt(20)))
      assert.deepEqual(announced, [])
      assert.deepEqual(unhandled, [])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('settle waits for the write in flight and announces nothing (an aborted run)', async () => {
    const store = createLocalStore(dir)
    const announced: StoredCheckpoint[] = []
    const writer = createCheckpointWriter(store, async (ref) => void announced.push(ref))
    const state = checkpointAt(0)
    await writer.add(state)
    await writer.settle()
    assert.deepEqual(announced, [])
    const hash = checkpointHash(encodeCheckpoint(state))
    assert.equal(checkpointHash(await store.get(hash)), hash, 'the checkpoint is whole in the store, for a resume to find')
    await writer.flush()
    assert.deepEqual(announced, [], 'a settled write is never announced later')
  })
})
