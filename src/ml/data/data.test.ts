import assert from 'node:assert/strict'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseJobSpec} from '../spec/parseJobSpec.js'
import {datasetHash, DatasetError, loadMnist, loadMnistRaw} from './index.js'

describe('MNIST data', () => {
  it('reads the first N samples of each split, scaled to [0, 1]', () => {
    const train = loadMnist({split: 'train', limit: 100})
    assert.equal(train.count, 100)
    assert.equal(train.images.length, 100 * 784)
    assert.deepEqual([...train.labels.subarray(0, 10)], [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]) // MNIST's well-known first labels
    assert.ok(train.images.every((v) => v >= 0 && v <= 1))
    const raw = loadMnistRaw({split: 'train', limit: 100})
    assert.equal(train.images[200], Math.fround((raw.pixels[200] as number) / 255))
    const test = loadMnist({split: 'test', limit: 10})
    assert.deepEqual([...test.labels], [7, 2, 1, 0, 4, 1, 4, 9, 5, 9])
    assert.throws(() => loadMnist({split: 'test', limit: 10001}), /expected an integer in \[1, 10000\] for the test split, got 10001/)
  })

  it('hashes exactly the training bytes used (known answer from Python hashlib)', () => {
    const spec = parseJobSpec(`name: t
model: {inputShape: [784], layers: [{type: dense, units: 10}]}
dataset: {name: mnist, trainLimit: 3000, testLimit: 10}
training: {steps: 1}
payment: {maxPrice: "0.00001"}`)
    assert.equal(datasetHash(spec), '0xdfb2f42fcdef50f07d26d0bf47be7283b4841088979456341dc9ad0c1ce70427')
    assert.notEqual(datasetHash({...spec, dataset: {...spec.dataset, trainLimit: 2999}}), datasetHash(spec))
  })

  it('validates IDX magic numbers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gensyn-mnist-'))
    const previous = process.env['GENSYN_MNIST_DIR']
    try {
      const header = Buffer.alloc(16)
      header.writeUInt32BE(2049, 0) // the labels magic in an images file
      header.writeUInt32BE(10000, 4)
      header.writeUInt32BE(28, 8)
      header.writeUInt32BE(28, 12)
      await writeFile(join(dir, 't10k-images-idx3-ubyte'), Buffer.concat([header, Buffer.alloc(784)]))
      const labels = Buffer.alloc(9)
      labels.writeUInt32BE(2049, 0)
      labels.writeUInt32BE(10000, 4)
      await writeFile(join(dir, 't10k-labels-idx1-ubyte'), labels)
      process.env['GENSYN_MNIST_DIR'] = dir
      assert.throws(() => loadMnistRaw({split: 'test', limit: 1}), (e: unknown) => e instanceof DatasetError && /expected magic number 2051, got 2049/.test(e.shortMessage))
    } finally {
      if (previous === undefined) delete process.env['GENSYN_MNIST_DIR']
      else process.env['GENSYN_MNIST_DIR'] = previous
      await rm(dir, {recursive: true, force: true})
    }
  })
})
