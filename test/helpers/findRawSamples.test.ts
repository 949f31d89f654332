import assert from 'node:assert/strict'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {loadMnist, loadMnistRaw} from '../../src/ml/data/loadMnist.js'
import {findRawSamples} from './findRawSamples.js'

describe('findRawSamples (the privacy e2e test\'s leak detector)', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gensyn-leak-'))
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('finds a raw sample at any offset, as IDX bytes or float32 pixels, and nothing in other data', async () => {
    const pixels = loadMnistRaw({split: 'train', limit: 50}).pixels
    const floats = loadMnist({split: 'test', limit: 20}).images
    // sample 17 of the train split as IDX bytes, 3 bytes into a file; test sample 5 as float32, unaligned
    await writeFile(path.join(dir, 'a'), Buffer.concat([Buffer.from([1, 2, 3]), pixels.subarray(17 * 784, 18 * 784), Buffer.from([9])]))
    await writeFile(path.join(dir, 'b'), Buffer.concat([Buffer.from([7]), Buffer.from(Float32Array.from(floats.subarray(5 * 784, 6 * 784)).buffer)]))
    // a sample with one pixel changed is not the sample
    const changed = Buffer.from(pixels.subarray(3 * 784, 4 * 784))
    changed[400] = (changed[400]! + 1) % 256
    await writeFile(path.join(dir, 'c'), changed)
    const found = findRawSamples(dir, {train: 50, test: 20})
    assert.deepEqual(found.sort(), [`test sample 5 as float32 pixels in ${path.join(dir, 'b')} at byte 1`, `train sample 17 as uint8 pixels in ${path.join(dir, 'a')} at byte 3`])
  })
})
