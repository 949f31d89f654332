import assert from 'node:assert/strict'
import {readFile} from 'node:fs/promises'
import {parseEther} from 'viem'
import {taskStepRange} from '../train/taskStepRange.js'
import {
  canonicalSpecBytes,
  JobSpecError,
  loadJobSpec,
  maxPriceWei,
  parseJobSpec,
  roundTaskSpecs,
  specHash,
  splitTaskSpecs,
} from './index.js'
import {jobSchemaJson} from './jobSchemaJson.js'

const base = {
  model: `model: {inputShape: [784], layers: [{type: dense, units: 10, activation: softmax}]}`,
  dataset: `dataset: {name: mnist}`,
  training: `training: {steps: 10}`,
  payment: `payment: {maxPrice: "0.00001"}`,
}
function spec(overrides: Partial<Record<keyof typeof base, string>> & {extra?: string} = {}): string {
  const parts = {...base, ...overrides}
  return ['name: t', parts.model, parts.dataset, parts.training, parts.payment, overrides.extra ?? ''].join('\n')
}
function shortMessageOf(text: string): string {
  try {
    parseJobSpec(text)
  } catch (error) {
    assert.ok(error instanceof JobSpecError, `expected JobSpecError, got ${String(error)}`)
    assert.ok(!error.shortMessage.includes('\n'), 'shortMessage is one line')
    return error.shortMessage
  }
  assert.fail('expected parseJobSpec to throw')
}

describe('job spec', () => {
  for (const name of ['mnist-mlp', 'smoke-mlp', 'mnist-cnn']) {
    it(`parses fixtures/jobs/${name}.yaml`, async () => {
      const job = await loadJobSpec(`fixtures/jobs/${name}.yaml`)
      assert.equal(job.name, name)
      assert.equal('name' in job.dataset && job.dataset.name, 'mnist')
      assert.match(specHash(job), /^0x[0-9a-f]{64}$/)
    })
  }

  it('fills in defaults', () => {
    const job = parseJobSpec(spec())
    assert.equal(job.training.batchSize, 32)
    assert.deepEqual(job.training.optimizer, {type: 'adam', learningRate: 0.001, beta1: 0.9, beta2: 0.999, epsilon: 1e-7})
    assert.equal(job.training.seed, 0)
    assert.equal(job.proof.checkpointInterval, 50)
    assert.equal(job.verification.segments, 2)
    assert.equal(job.dataset.trainLimit, 60000)
    assert.deepEqual(job.payment, {maxPrice: '0.00001'})
    assert.equal(job.training.stopAt, undefined, 'no early stop unless asked')
    assert.equal(job.split, undefined, 'one task unless split')
    assert.deepEqual(job.model.layers[0], {type: 'dense', units: 10, activation: 'softmax'})
  })

  it('hashes canonically: key order and spelled-out defaults do not change the hash', () => {
    const a = parseJobSpec(spec())
    const b = parseJobSpec(
      [
        'payment: {maxPrice: "0.00001"}',
        'training: {seed: 0, steps: 10, batchSize: 32}',
        'dataset: {trainLimit: 60000, name: mnist}',
        base.model,
        'name: t',
      ].join('\n'),
    )
    assert.equal(specHash(a), specHash(b))
    const text = new TextDecoder().decode(canonicalSpecBytes(a))
    assert.ok(text.startsWith('{"dataset":{"name":"mnist","testLimit":10000,"trainLimit":60000},"model":'), text)
    const c = parseJobSpec(spec({training: 'training: {steps: 11}'}))
    assert.notEqual(specHash(a), specHash(c))
    // microBatches has no zod default (an absent field keeps every earlier spec's hash): 1 spelled out is the same job
    assert.equal(specHash(parseJobSpec(spec({training: 'training: {steps: 10, microBatches: 1}'}))), specHash(a))
    assert.notEqual(specHash(parseJobSpec(spec({training: 'training: {steps: 10, microBatches: 2}'}))), specHash(a))
  })

  const bad: [string, string, string][] = [
    [
      'an unknown layer type',
      spec({model: `model: {inputShape: [784], layers: [{type: dense, units: 10}, {type: lstm}]}`}),
      'job.yaml: model.layers[1].type: expected one of dense, conv2d, maxPooling2d, avgPooling2d, globalAveragePooling, flatten, dropout, embedding, positionalEmbedding, layerNormalization, multiHeadAttention, residual, got "lstm"',
    ],
    [
      'a negative learning rate',
      spec({training: `training: {steps: 10, optimizer: {type: sgd, learningRate: -0.1}}`}),
      'job.yaml: training.optimizer.learningRate: expected a positive number, got -0.1',
    ],
    [
      'an unknown key',
      spec({training: `training: {steps: 10, lr: 0.1}`}),
      'job.yaml: training.lr: unknown key, expected one of steps, batchSize, optimizer, seed, loss, stopAt, schedule, clipNorm, microBatches',
    ],
    ['a missing section', spec({training: ''}), 'job.yaml: training: required, expected an object'],
    [
      'micro-batches that do not divide the batch',
      spec({training: `training: {steps: 10, batchSize: 32, microBatches: 5}`}),
      'job.yaml: training.microBatches: expected a divisor of training.batchSize (32), got 5',
    ],
    ['no micro-batches', spec({training: `training: {steps: 10, microBatches: 0}`}), 'job.yaml: training.microBatches: expected a positive number, got 0'],
    [
      'a non-integer step count',
      spec({training: `training: {steps: 2.5}`}),
      'job.yaml: training.steps: expected an integer, got 2.5',
    ],
    [
      'an unknown optimizer',
      spec({training: `training: {steps: 10, optimizer: {type: rmsprop, learningRate: 0.1}}`}),
      'job.yaml: training.optimizer.type: expected one of sgd, adam, adamw, got "rmsprop"',
    ],
    [
      'an unknown activation',
      spec({model: `model: {inputShape: [784], layers: [{type: dense, units: 10, activation: swish}]}`}),
      'job.yaml: model.layers[0].activation: expected one of relu, sigmoid, tanh, softmax, gelu, linear, got "swish"',
    ],
    [
      'a dropout rate of 1',
      spec({model: `model: {inputShape: [784], layers: [{type: dropout, rate: 1}, {type: dense, units: 10}]}`}),
      'job.yaml: model.layers[0].rate: expected a number < 1, got 1',
    ],
    [
      'a dense layer on an image',
      spec({model: `model: {inputShape: [28, 28, 1], layers: [{type: dense, units: 10}]}`}),
      'job.yaml: model.layers[0].type: expected a flat or [sequence, features] input for dense, got [28, 28, 1] (add a flatten layer before it)',
    ],
    [
      'a last layer without 10 classes',
      spec({model: `model: {inputShape: [784], layers: [{type: dense, units: 5, activation: softmax}]}`}),
      'job.yaml: model.layers[0].units: expected 10 (MNIST classes) in the last layer, got 5',
    ],
    [
      'a kernel larger than its input',
      spec({
        model: `model: {inputShape: [28, 28, 1], layers: [{type: maxPooling2d, poolSize: 2}, {type: conv2d, filters: 2, kernelSize: 15}, {type: flatten}, {type: dense, units: 10}]}`,
      }),
      'job.yaml: model.layers[1].kernelSize: expected a window no larger than the input [14, 14, 1], got [15, 15]',
    ],
    [
      'an input shape that is not MNIST',
      spec({model: `model: {inputShape: [100], layers: [{type: dense, units: 10}]}`}),
      'job.yaml: model.inputShape: expected a shape of 784 values for mnist ([784], [28, 28, 1] or [28, 28]), got [100]',
    ],
    ['a maxPrice that is a number', spec({payment: 'payment: {maxPrice: 1}'}), 'job.yaml: payment.maxPrice: expected a string, got 1'],
    [
      'a malformed maxPrice',
      spec({payment: 'payment: {maxPrice: "1e-3"}'}),
      'job.yaml: payment.maxPrice: expected a decimal ETH amount like "0.05", got "1e-3"',
    ],
    ['a maxPrice of 0', spec({payment: 'payment: {maxPrice: "0.000"}'}), 'job.yaml: payment.maxPrice: expected a price above 0, got "0.000"'],
    ['no maxPrice at all', spec({payment: 'payment: {}'}), 'job.yaml: payment.maxPrice: required, expected a string'],
    [
      'the old fee field',
      spec({payment: 'payment: {maxPrice: "0.00001", fee: "1"}'}),
      'job.yaml: payment.fee: unknown key, expected one of maxPrice',
    ],
    [
      'a stopAt target of 0',
      spec({training: 'training: {steps: 10, stopAt: {testAccuracy: 0}}'}),
      'job.yaml: training.stopAt.testAccuracy: expected a positive number, got 0',
    ],
    [
      'a stopAt target above 1',
      spec({training: 'training: {steps: 10, stopAt: {testAccuracy: 1.5}}'}),
      'job.yaml: training.stopAt.testAccuracy: expected a number <= 1, got 1.5',
    ],
    [
      'a stopAt on another metric',
      spec({training: 'training: {steps: 10, stopAt: {testAccuracy: 0.9, loss: 0.1}}'}),
      'job.yaml: training.stopAt.loss: unknown key, expected one of testAccuracy, testLoss',
    ],
    [
      'a stopAt on two metrics at once',
      spec({training: 'training: {steps: 10, stopAt: {testAccuracy: 0.9, testLoss: 0.1}}'}),
      'job.yaml: training.stopAt: expected exactly one of testAccuracy and testLoss',
    ],
    [
      'a crossEntropy loss for a regression',
      spec({
        model: 'model: {inputShape: [3], layers: [{type: dense, units: 1}]}',
        dataset: 'dataset: {source: x.csv, task: regression}',
        training: 'training: {steps: 10, loss: crossEntropy}',
      }),
      'job.yaml: training.loss: expected mse or mae for a regression, got "crossEntropy"',
    ],
    [
      'a split whose ranges are not equal',
      spec({training: 'training: {steps: 300}', extra: 'proof: {checkpointInterval: 50}\nsplit: {tasks: 4}'}),
      'job.yaml: split.tasks: expected training.steps (300) to split into 4 equal ranges that are multiples of proof.checkpointInterval (50)',
    ],
    [
      'a split whose ranges are not multiples of the checkpoint interval',
      spec({training: 'training: {steps: 300}', extra: 'proof: {checkpointInterval: 40}\nsplit: {tasks: 3}'}),
      'job.yaml: split.tasks: expected training.steps (300) to split into 3 equal ranges that are multiples of proof.checkpointInterval (40)',
    ],
    [
      'a split index equal to the task count',
      spec({training: 'training: {steps: 300}', extra: 'proof: {checkpointInterval: 50}\nsplit: {tasks: 3, index: 3}'}),
      'job.yaml: split.index: expected an index below split.tasks (3), got 3',
    ],
    [
      'a split index above the task count',
      spec({training: 'training: {steps: 300}', extra: 'proof: {checkpointInterval: 50}\nsplit: {tasks: 3, index: 7}'}),
      'job.yaml: split.index: expected an index below split.tasks (3), got 7',
    ],
    [
      'a negative split index',
      spec({training: 'training: {steps: 300}', extra: 'proof: {checkpointInterval: 50}\nsplit: {tasks: 3, index: -1}'}),
      'job.yaml: split.index: expected a number >= 0, got -1',
    ],
    [
      'a split into one task',
      spec({training: 'training: {steps: 300}', extra: 'proof: {checkpointInterval: 50}\nsplit: {tasks: 1}'}),
      'job.yaml: split.tasks: expected at least 2 sequential tasks (or split.shards for one round of parallel tasks), got 1',
    ],
    [
      'a shard without shards',
      spec({training: 'training: {steps: 300}', extra: 'proof: {checkpointInterval: 50}\nsplit: {tasks: 3, shard: 1}'}),
      'job.yaml: split.shard: expected no shard without split.shards',
    ],
    [
      'a start without shards',
      spec({training: 'training: {steps: 300}', extra: `proof: {checkpointInterval: 50}\nsplit: {tasks: 3, index: 1, start: "0x${'ab'.repeat(32)}"}`}),
      'job.yaml: split.start: expected no start without split.shards (a sequential task starts from its parent task)',
    ],
    [
      'a shard equal to the shard count',
      spec({training: 'training: {steps: 300}', extra: 'proof: {checkpointInterval: 50}\nsplit: {tasks: 3, shards: 4, index: 0, shard: 4}'}),
      'job.yaml: split.shard: expected a shard below split.shards (4), got 4',
    ],
    [
      'a start in the first round',
      spec({training: 'training: {steps: 300}', extra: `proof: {checkpointInterval: 50}\nsplit: {tasks: 3, shards: 2, index: 0, shard: 0, start: "0x${'ab'.repeat(32)}"}`}),
      'job.yaml: split.start: expected no start in the first round (it starts from the seed-derived initial state)',
    ],
    [
      'one shard',
      spec({training: 'training: {steps: 300}', extra: 'proof: {checkpointInterval: 50}\nsplit: {tasks: 3, shards: 1}'}),
      'job.yaml: split.shards: expected a number >= 2, got 1',
    ],
    [
      'more shards than the limit',
      spec({training: 'training: {steps: 300}', extra: 'proof: {checkpointInterval: 50}\nsplit: {tasks: 3, shards: 17}'}),
      'job.yaml: split.shards: expected a number <= 16, got 17',
    ],
    ['a train limit above 60000', spec({dataset: 'dataset: {name: mnist, trainLimit: 70000}'}), 'job.yaml: dataset.trainLimit: expected a number <= 60000, got 70000'],
    ['an unknown data set', spec({dataset: 'dataset: {name: cifar10}'}), 'job.yaml: dataset.name: expected one of mnist, got "cifar10"'],
    ['malformed YAML', 'name: x\nmodel: {inputShape: [784]\n', 'job.yaml:3:1: malformed YAML: '],
    ['an empty file', '', 'job.yaml: empty job spec, expected a YAML mapping'],
    ['a duplicate key', 'name: x\nname: y\n', 'job.yaml:2:1: malformed YAML: Map keys must be unique'],
  ]
  for (const [what, text, expected] of bad) {
    it(`rejects ${what} with one line`, () => {
      const message = shortMessageOf(text)
      if (expected.endsWith(': ')) assert.ok(message.startsWith(expected), message)
      else assert.equal(message, expected)
    })
  }

  it('lists every problem in details and names the first field', () => {
    try {
      parseJobSpec(spec({training: 'training: {steps: -1, batchSize: 0}'}))
      assert.fail('expected an error')
    } catch (error) {
      assert.ok(error instanceof JobSpecError)
      assert.equal(error.field, 'training.steps')
      assert.match(error.details ?? '', /training\.steps: expected a positive number, got -1; training\.batchSize: expected a positive number, got 0/)
    }
  })

  it('names the file in messages and reports a missing file', async () => {
    await assert.rejects(loadJobSpec('fixtures/jobs/does-not-exist.yaml'), (error: unknown) => {
      assert.ok(error instanceof JobSpecError)
      assert.equal(error.shortMessage, 'job spec not found: fixtures/jobs/does-not-exist.yaml')
      return true
    })
  })

  it('reads maxPrice in wei per work unit', () => {
    assert.equal(maxPriceWei(parseJobSpec(spec({payment: 'payment: {maxPrice: "0.00002"}'}))), parseEther('0.00002'))
    assert.equal(maxPriceWei(parseJobSpec(spec({payment: 'payment: {maxPrice: "0.000000000000000001"}'}))), 1n, 'one wei: 18 decimals are exact')
  })

  it('accepts an early stop target', () => {
    const job = parseJobSpec(spec({training: 'training: {steps: 10, stopAt: {testAccuracy: 0.9}}'}))
    assert.deepEqual(job.training.stopAt, {testAccuracy: 0.9})
    assert.notEqual(specHash(job), specHash(parseJobSpec(spec())), 'the target is part of the job')
  })

  describe('verification.targetDetection', () => {
    const target = (steps: number, extra: string) => spec({training: `training: {steps: ${steps}}`, extra: `proof: {checkpointInterval: 10}\nverification: {${extra}}`})

    it('sizes verification.segments to the smallest sample that catches forge with the target (docs/adversaries.md: 5 of 10 segments, 7 of 20, 3 of 4)', () => {
      assert.equal(parseJobSpec(target(100, 'targetDetection: 0.99')).verification.segments, 5)
      assert.equal(parseJobSpec(target(200, 'targetDetection: 0.99')).verification.segments, 7)
      assert.equal(parseJobSpec(target(40, 'targetDetection: 0.99')).verification.segments, 3)
      // 0.5: one uniform pick of 19 non-final segments hits forge's 10 with 10/19 >= 0.5
      assert.equal(parseJobSpec(target(200, 'targetDetection: 0.5')).verification.segments, 2)
      assert.equal(parseJobSpec(target(200, 'targetDetection: 1')).verification.segments, 11)
      assert.equal(parseJobSpec(target(200, 'targetDetection: 0.99')).verification.targetDetection, 0.99)
    })

    it('keeps a given segment count that reaches the target, and refuses one that does not, naming the field', () => {
      assert.equal(parseJobSpec(target(100, 'targetDetection: 0.99, segments: 8')).verification.segments, 8)
      assert.equal(
        shortMessageOf(target(100, 'targetDetection: 0.99, segments: 3')),
        'job.yaml: verification.segments: expected at least 5 to reach verification.targetDetection 0.99 against forge with 10 segments, got 3',
      )
      assert.match(shortMessageOf(target(100, 'targetDetection: 1.5')), /^job\.yaml: verification\.targetDetection: expected .*1/)
      assert.match(shortMessageOf(target(100, 'targetDetection: 0')), /^job\.yaml: verification\.targetDetection: expected .*0/)
    })

    it('is part of the spec hash, and the sized spec reparses to itself (what the submitter publishes)', () => {
      const sized = parseJobSpec(target(100, 'targetDetection: 0.99'))
      assert.notEqual(specHash(sized), specHash(parseJobSpec(target(100, 'segments: 5'))))
      const republished = parseJobSpec(new TextDecoder().decode(canonicalSpecBytes(sized)))
      assert.deepEqual(republished, sized)
      assert.equal(specHash(republished), specHash(sized))
    })
  })

  describe('verification.spread', () => {
    const withSpread = (extra: string) => spec({extra: `verification: {segments: 2${extra}}`})

    it('is absent by default, so a spec without it hashes as before, and is part of the hash when set', () => {
      assert.equal(parseJobSpec(withSpread('')).verification.spread, undefined)
      assert.equal(specHash(parseJobSpec(withSpread(''))), specHash(parseJobSpec(spec({extra: 'verification: {segments: 2}'}))))
      const off = parseJobSpec(withSpread(', spread: {backends: [], margin: 2}'))
      assert.deepEqual(off.verification.spread, {backends: [], margin: 2})
      assert.notEqual(specHash(off), specHash(parseJobSpec(withSpread(''))))
    })

    it('refuses another backend, a margin under 1 and a missing field in one line naming the field', () => {
      assert.equal(shortMessageOf(withSpread(', spread: {backends: [webgpu], margin: 2}')), 'job.yaml: verification.spread.backends[0]: expected one of wasm, cpu, got "webgpu"')
      assert.match(shortMessageOf(withSpread(', spread: {backends: [cpu], margin: 0.5}')), /^job\.yaml: verification\.spread\.margin: .*1/)
      assert.match(shortMessageOf(withSpread(', spread: {backends: [cpu]}')), /^job\.yaml: verification\.spread\.margin: /)
    })
  })

  describe('verification.profiles', () => {
    const pinned = '0x' + 'ab'.repeat(32)
    const other = '0x' + 'cd'.repeat(32)

    it('is absent unless pinned, so a spec without pins hashes as before', () => {
      assert.equal(parseJobSpec(spec()).verification.profiles, undefined)
      assert.ok(!new TextDecoder().decode(canonicalSpecBytes(parseJobSpec(spec()))).includes('profiles'))
    })

    it('keeps the pinned profile hashes in order, and they are part of the spec hash', () => {
      const job = parseJobSpec(spec({extra: `verification: {profiles: ["${other}", "${pinned}"]}`}))
      assert.deepEqual(job.verification.profiles, [other, pinned])
      assert.notEqual(specHash(job), specHash(parseJobSpec(spec())))
      assert.notEqual(specHash(job), specHash(parseJobSpec(spec({extra: `verification: {profiles: ["${other}"]}`}))))
    })

    it('names a malformed or repeated pin in one line', () => {
      assert.equal(
        shortMessageOf(spec({extra: 'verification: {profiles: ["0xAB"]}'})),
        'job.yaml: verification.profiles[0]: expected 0x followed by 64 lowercase hex digits, got "0xAB"',
      )
      assert.equal(
        shortMessageOf(spec({extra: `verification: {profiles: ["${pinned}", "${other}", "${pinned}"]}`})),
        `job.yaml: verification.profiles: expected each profile hash once, got ${pinned} twice`,
      )
      assert.match(shortMessageOf(spec({extra: `verification: {profiles: "${pinned}"}`})), /^job\.yaml: verification\.profiles: expected an array, got "0xab/)
    })
  })

  describe('split', () => {
    const job = parseJobSpec(spec({training: 'training: {steps: 300}', extra: 'proof: {checkpointInterval: 50}\nsplit: {tasks: 3}'}))

    it('makes one task spec per range, each naming its index', () => {
      const tasks = splitTaskSpecs(job)
      assert.equal(tasks.length, 3)
      assert.deepEqual(tasks.map((task) => task.split), [0, 1, 2].map((index) => ({tasks: 3, index})))
      assert.deepEqual(tasks.map((task) => taskStepRange(task)), [{start: 0, end: 100}, {start: 100, end: 200}, {start: 200, end: 300}])
      for (const task of tasks) {
        assert.deepEqual({...task, split: undefined}, {...job, split: undefined}, 'otherwise the same job')
        assert.deepEqual(parseJobSpec(new TextDecoder().decode(canonicalSpecBytes(task))), task, 'a task spec is a valid spec that round-trips')
      }
      assert.equal(new Set(tasks.map((task) => specHash(task))).size, 3, 'each task has its own spec hash')
      assert.deepEqual(taskStepRange(job), {start: 0, end: 300}, 'the job file (no index) is the whole job')
    })

    it('gives the whole job from any of its task specs', () => {
      const [, second] = splitTaskSpecs(job)
      assert.ok(second)
      assert.deepEqual(splitTaskSpecs(second), splitTaskSpecs(job))
    })

    it('makes a parallel split into rounds of shard tasks, each round from the start it is given', () => {
      const parallel = parseJobSpec(spec({training: 'training: {steps: 200}', extra: 'proof: {checkpointInterval: 50}\nsplit: {tasks: 2, shards: 3}'}))
      const tasks = splitTaskSpecs(parallel)
      assert.deepEqual(
        tasks.map((task) => task.split),
        [0, 1].flatMap((index) => [0, 1, 2].map((shard) => ({tasks: 2, shards: 3, index, shard}))),
      )
      assert.deepEqual(tasks.map((task) => taskStepRange(task).start), [0, 0, 0, 100, 100, 100], 'the shards of a round train the same steps')
      assert.equal(new Set(tasks.map((task) => specHash(task))).size, 6, 'each shard task has its own spec hash')
      const start = `0x${'cd'.repeat(32)}` as const
      const second = roundTaskSpecs(parallel, 1, start)
      assert.deepEqual(second.map((task) => task.split?.start), [start, start, start])
      for (const task of second) assert.deepEqual(parseJobSpec(new TextDecoder().decode(canonicalSpecBytes(task))), task, 'a shard task spec round-trips')
      assert.throws(() => roundTaskSpecs(job, 0, undefined), (error: unknown) => error instanceof JobSpecError && error.field === 'split.shards')
    })

    it('leaves a job without split as its single task', () => {
      const single = parseJobSpec(spec())
      assert.deepEqual(splitTaskSpecs(single), [single])
    })
  })

  it('has an up-to-date committed JSON schema (npm run build:schema)', async () => {
    const committed = await readFile('schema/job.schema.json', 'utf8')
    assert.equal(committed, jobSchemaJson(), 'schema/job.schema.json is stale: run npm run build:schema')
    const schema = JSON.parse(committed) as {properties: Record<string, unknown>; additionalProperties: boolean}
    assert.deepEqual(Object.keys(schema.properties), ['name', 'model', 'dataset', 'training', 'proof', 'verification', 'payment', 'split', 'privacy'])
    assert.equal(schema.additionalProperties, false)
  })

  it('points the fixtures at the schema', async () => {
    for (const name of ['mnist-mlp', 'smoke-mlp', 'mnist-cnn', 'private-mlp', 'private-cnn']) {
      const text = await readFile(`fixtures/jobs/${name}.yaml`, 'utf8')
      assert.ok(text.startsWith('# yaml-language-server: $schema=../../schema/job.schema.json\n'), name)
    }
  })
})
