import assert from 'node:assert/strict'
import * as tf from '@tensorflow/tfjs'
import {createHash} from 'node:crypto'
import {mkdtemp, readdir, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Hex} from 'viem'
import {loadExportedModel} from '../../test/helpers/loadExportedModel.js'
import {selectBackend} from '../ml/backend/selectBackend.js'
import {DatasetError, loadMnist} from '../ml/data/loadMnist.js'
import {
  decodeMappedDataset,
  encodeMappedDataset,
  fetchMappedDataset,
  mappedDataset,
  mappedDatasetHash,
  mappedDatasetsKept,
  registerMappedDataset,
} from '../ml/data/mappedDataset.js'
import {samplesFor} from '../ml/data/samplesFor.js'
import {checkpointModel} from '../ml/export/exportModel.js'
import {parseJobSpec} from '../ml/spec/parseJobSpec.js'
import {privacyMappings, type JobSpec} from '../ml/spec/schema.js'
import {tinyCnnLayers, tinySpec} from '../ml/train/testSpecs.js'
import {trainJob} from '../ml/train/trainJob.js'
import {createLocalStore} from '../store/createLocalStore.js'
import {
  applyMapping,
  deriveMappingKey,
  exportWrappedModel,
  featureCount,
  loadOrCreateSecret,
  mapJobData,
  mappingStages,
  PrivacyError,
  readKeyFile,
  writeKeyFile,
} from './index.js'
import {randomOrthogonal} from './randomOrthogonal.js'
import {prngStream} from '../ml/prng/prngStream.js'

const keyA: Hex = `0x${'a1'.repeat(32)}`
const keyB: Hex = `0x${'b2'.repeat(32)}`

describe('privacy: keyed mappings', () => {
  before(async () => {
    await selectBackend('wasm')
  })

  it('derives the key as sha256(label || 0 || secret || blockHash), fresh per block', () => {
    const secret: Hex = `0x${'11'.repeat(32)}`
    const blockHash: Hex = `0x${'22'.repeat(32)}`
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from('gensyn/privacy/key/v1'), Buffer.from([0]), Buffer.alloc(32, 0x11), Buffer.alloc(32, 0x22)]))
      .digest('hex')
    assert.equal(deriveMappingKey({secret, blockHash}), `0x${expected}`)
    assert.notEqual(deriveMappingKey({secret, blockHash: `0x${'23'.repeat(32)}`}), `0x${expected}`)
  })

  it('draws an orthogonal matrix: Q Q^T = I to 1e-12, the same one for the same stream', () => {
    const n = 64
    const q = randomOrthogonal(prngStream('test'), n)
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let dot = 0
        for (let k = 0; k < n; k++) dot += (q[i * n + k] as number) * (q[j * n + k] as number)
        assert.ok(Math.abs(dot - (i === j ? 1 : 0)) < 1e-12, `row ${i} . row ${j} = ${dot}`)
      }
    assert.deepEqual(randomOrthogonal(prngStream('test'), n), q)
    assert.notDeepEqual(randomOrthogonal(prngStream('other'), n), q)
  })

  for (const mapping of privacyMappings)
    it(`${mapping}: the key alone fixes the mapping, and another key gives another`, () => {
      const a = mappingStages(mapping, keyA)
      assert.deepEqual(mappingStages(mapping, keyA), a)
      const b = mappingStages(mapping, keyB)
      assert.equal(b.length, a.length)
      assert.notDeepEqual(b[0]?.kernel, a[0]?.kernel)
      for (const stage of a) assert.equal(stage.kernel.length, featureCount * featureCount)
    })

  it('local keeps the 2-D layout: each output pixel reads only its 3x3 neighbourhood, with a positive gain', () => {
    const [stage] = mappingStages('local', keyA)
    const kernel = stage!.kernel
    for (const out of [0, 29, 406, 783]) {
      const [row, col] = [Math.floor(out / 28), out % 28]
      for (let input = 0; input < featureCount; input++) {
        const near = Math.abs(Math.floor(input / 28) - row) <= 1 && Math.abs((input % 28) - col) <= 1
        if (!near) assert.equal(kernel[input * featureCount + out], 0, `pixel ${out} reads far pixel ${input}`)
      }
      const centre = kernel[out * featureCount + out] as number
      assert.ok(centre >= 0.5 && centre < 1.5, `centre gain ${centre}`)
    }
  })

  it('orthogonal keeps distances (it is a rotation), tanh-mix does not', () => {
    const raw = loadMnist({split: 'train', limit: 20})
    const distance = (images: Float32Array, i: number, j: number) => {
      let sum = 0
      for (let k = 0; k < featureCount; k++) sum += ((images[i * featureCount + k] as number) - (images[j * featureCount + k] as number)) ** 2
      return Math.sqrt(sum)
    }
    const rotated = applyMapping(mappingStages('orthogonal', keyA), raw)
    const mixed = applyMapping(mappingStages('tanh-mix', keyA), raw)
    let worstRotated = 0
    let worstMixed = 0
    for (let i = 0; i < 10; i++) {
      const d = distance(raw.images, i, i + 10)
      worstRotated = Math.max(worstRotated, Math.abs(distance(rotated.images, i, i + 10) - d) / d)
      worstMixed = Math.max(worstMixed, Math.abs(distance(mixed.images, i, i + 10) - d) / d)
    }
    assert.ok(worstRotated < 1e-5, `orthogonal changed a distance by ${worstRotated}`)
    assert.ok(worstMixed > 0.05, `tanh-mix kept distances to ${worstMixed}`)
    assert.deepEqual(rotated.labels, raw.labels)
  })

  it('encodes a mapped data set and reads it back; malformed blobs fail with one line', () => {
    const spec = tinySpec({trainLimit: 30})
    const dataset = mapJobData({dataset: {...spec.dataset, testLimit: 7}}, 'local', keyA)
    const bytes = encodeMappedDataset(dataset)
    const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true)
    assert.equal(bytes.length, 4 + headerLength + (30 + 7) * (784 * 4 + 1))
    const back = decodeMappedDataset(bytes)
    assert.deepEqual(back.train.images, dataset.train.images)
    assert.deepEqual(back.test.labels, dataset.test.labels)
    assert.equal(back.mapping, 'local')
    assert.match(mappedDatasetHash(bytes), /^0x[0-9a-f]{64}$/)
    assert.throws(() => decodeMappedDataset(bytes.subarray(0, bytes.length - 1)), (e: unknown) => e instanceof DatasetError && /ends early|expected \d+ bytes/.test(e.shortMessage))
    const wrongFormat = Buffer.from(bytes)
    wrongFormat[wrongFormat.indexOf('dataset/v1') + 'dataset/v'.length] = '9'.charCodeAt(0)
    assert.throws(() => decodeMappedDataset(wrongFormat), (e: unknown) => e instanceof DatasetError && /expected format gensyn-mapped-dataset\/v1/.test(e.shortMessage))
  })

  it('keeps the last few mapped data sets; an evicted one is fetched again from the store', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gensyn-mapped-'))
    try {
      const store = createLocalStore(join(dir, 'store'), {fsync: false})
      const spec = tinySpec({trainLimit: 5})
      const dataset = mapJobData({dataset: {...spec.dataset, testLimit: 3}}, 'local', keyA)
      const first = await store.put(encodeMappedDataset(dataset))
      registerMappedDataset(first, dataset)
      for (let i = 0; i < mappedDatasetsKept; i++) registerMappedDataset(`0x${String(i).padStart(64, 'e')}`, dataset)
      assert.throws(() => mappedDataset(first), (e: unknown) => e instanceof DatasetError && /is not loaded in this process/.test(e.shortMessage))
      const fetched = await fetchMappedDataset(store, first)
      assert.deepEqual(fetched.train.images, dataset.train.images)
      assert.equal(mappedDataset(first), fetched)
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })

  it('a private spec reads only the data set it names, and says so when it is not loaded', () => {
    const spec = parseJobSpec(`name: p
model: {inputShape: [784], layers: [{type: dense, units: 10}]}
dataset: {name: mnist, trainLimit: 100}
training: {steps: 1}
payment: {maxPrice: "0.00001"}
privacy: {mapping: orthogonal, data: "0x${'cd'.repeat(32)}"}`)
    assert.throws(() => samplesFor(spec, 'train'), (e: unknown) => e instanceof DatasetError && e.shortMessage.includes(`0x${'cd'.repeat(32)} is not loaded`))
    assert.throws(
      () => parseJobSpec(`name: p
model: {inputShape: [784], layers: [{type: dense, units: 10}]}
dataset: {name: mnist}
training: {steps: 1}
payment: {maxPrice: "0.00001"}
privacy: {mapping: rot13}`),
      /privacy\.mapping: expected one of orthogonal, local, tanh-mix, got "rot13"/,
    )
  })
})

describe('privacy: the wrapped model', () => {
  let dir: string
  before(async () => {
    await selectBackend('wasm')
    dir = await mkdtemp(join(tmpdir(), 'gensyn-privacy-'))
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  const cases: [string, JobSpec, (typeof privacyMappings)[number]][] = [
    ['mlp', tinySpec({steps: 20, interval: 20}), 'orthogonal'],
    ['mlp', tinySpec({steps: 20, interval: 20}), 'tanh-mix'],
    ['cnn', tinySpec({inputShape: '[28, 28, 1]', layers: tinyCnnLayers, steps: 10, interval: 10}), 'local'],
  ]
  for (const [kind, spec, mapping] of cases)
    it(`${mapping} + ${kind}: the exported wrapped model on raw inputs equals the trained model on mapped inputs, bit for bit`, async () => {
      const store = createLocalStore(join(dir, 'store'), {fsync: false})
      const result = await trainJob({spec, store})
      const checkpoint = await store.get(result.checkpoints.at(-1)!.hash)
      const outDir = join(dir, `${kind}-${mapping}`)
      await exportWrappedModel({spec, checkpoint, outDir, key: {mapping, key: keyA}})
      const wrapped = await loadExportedModel(outDir)
      const trained = checkpointModel(spec, checkpoint)
      const raw = loadMnist({split: 'test', limit: 64})
      const mapped = applyMapping(mappingStages(mapping, keyA), raw)
      const [fromRaw, fromMapped, unwrappedOnRaw] = tf.tidy(() => [
        (wrapped.predict(tf.tensor(raw.images, [64, ...spec.model.inputShape])) as tf.Tensor).dataSync() as Float32Array,
        (trained.predict(tf.tensor(mapped.images, [64, ...spec.model.inputShape])) as tf.Tensor).dataSync() as Float32Array,
        (trained.predict(tf.tensor(raw.images, [64, ...spec.model.inputShape])) as tf.Tensor).dataSync() as Float32Array,
      ])
      assert.deepEqual(fromRaw, fromMapped)
      // the trained model alone does not take raw inputs: its outputs on them are something else
      assert.notDeepEqual(unwrappedOnRaw, fromMapped)
      // the mapping is frozen and first
      const mappingDense = wrapped.layers.filter((layer) => layer.name.startsWith('privacy_map'))
      assert.equal(mappingDense.length, mapping === 'tanh-mix' ? 2 : 1)
      assert.ok(mappingDense.every((layer) => !layer.trainable))
      assert.match(wrapped.layers[0]!.name, /^privacy_/)
      wrapped.dispose()
      trained.dispose()
    })
})

describe('privacy: secret and key files', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-keys-'))
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('creates the secret once, 0600, and reuses it', async () => {
    const file = join(dir, 'nested', 'secret')
    const secret = await loadOrCreateSecret(file)
    assert.match(secret, /^0x[0-9a-f]{64}$/)
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    assert.equal(await loadOrCreateSecret(file), secret)
    // Submitters starting at once all get the one secret written, and none reads it half-written (an exclusive
    // create of the file itself showed one an empty file within a few hundred rounds here).
    for (let round = 0; round < 1000; round++) {
      const raced = join(dir, `raced-${round}`)
      const secrets = await Promise.all(Array.from({length: 8}, () => loadOrCreateSecret(raced)))
      assert.deepEqual(new Set(secrets), new Set([(await readFile(raced, 'utf8')).trim()]))
    }
    assert.deepEqual((await readdir(dir)).filter((name) => name.includes('.tmp-')), [])
    await writeFile(join(dir, 'bad'), 'not hex\n')
    await assert.rejects(loadOrCreateSecret(join(dir, 'bad')), (e: unknown) => e instanceof PrivacyError && /expected 0x followed by 64/.test(e.shortMessage))
  })

  it('writes key files 0600 and rejects a malformed one naming the field', async () => {
    const file = join(dir, 'task-3.json')
    const key = {
      format: 'gensyn-privacy-key/v1' as const,
      mapping: 'orthogonal' as const,
      key: keyA,
      blockNumber: '12',
      blockHash: keyB,
      data: keyA,
      inputShape: [784],
      taskIds: ['3'],
    }
    await writeKeyFile(file, key)
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    assert.deepEqual(await readKeyFile(file), key)
    const malformed = JSON.stringify({...key, mapping: 'rot13'})
    await writeFile(file, malformed)
    await assert.rejects(readKeyFile(file), (e: unknown) => e instanceof PrivacyError && /task-3\.json: mapping: /.test(e.shortMessage))
    await assert.rejects(readKeyFile(join(dir, 'missing.json')), (e: unknown) => e instanceof PrivacyError && /key file not found/.test(e.shortMessage))
    // a malformed key file is reported, never rewritten or removed: it may be the only copy of a task's key
    assert.equal(await readFile(file, 'utf8'), malformed)
  })
})
