import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {runCommand} from '@oclif/test'
import type {Hex} from 'viem'

import {loadJobSpec} from '../../src/ml/spec/index.js'
import {profileJob} from '../../src/pol/index.js'
import {connect, requireSigner} from '../../src/protocol/connect.js'
import {getTask} from '../../src/protocol/getTask.js'
import {loadTaskSpec} from '../../src/protocol/loadTaskSpec.js'
import {postProfile} from '../../src/protocol/postProfile.js'
import {repoRoot, runGensyn} from '../helpers/cli.js'
import {type LocalDevnet, startLocalDevnet} from '../helpers/localDevnet.js'

describe('gensyn submit: input validation', function () {
  this.timeout(60_000)

  const cases = [
    {what: 'malformed YAML', file: 'test/fixtures/bad/malformed.yaml', message: /malformed YAML/},
    {what: 'an unknown layer', file: 'test/fixtures/bad/unknown-layer.yaml', message: /model\.layers\[1\]\.type.*lstm/},
    {what: 'a negative learning rate', file: 'test/fixtures/bad/negative-lr.yaml', message: /training\.optimizer\.learningRate.*-0\.1/},
    {what: 'a missing file', file: 'test/fixtures/bad/does-not-exist.yaml', message: /not found.*does-not-exist\.yaml/},
    {what: 'an unknown privacy mapping', file: 'test/fixtures/bad/unknown-mapping.yaml', message: /privacy\.mapping: expected one of orthogonal, local, tanh-mix/},
    {what: 'a job file that names its own mapped data set', file: 'test/fixtures/bad/private-data-set.yaml', message: /privacy\.data: expected it absent in a job file/},
    {what: 'a ragged CSV row', file: 'test/fixtures/bad/own-data-ragged.yaml', message: /ragged\.csv: line 3 has 2 fields, expected as many as the header$/},
    {what: 'a model whose input does not fit the data', file: 'test/fixtures/bad/own-data-shape.yaml', message: /model\.inputShape: expected 4 values per sample \(the data's features \[4\]\), got \[5\]$/},
    {what: 'a job file that names its own published data set', file: 'test/fixtures/bad/own-data-published.yaml', message: /dataset\.data: expected it absent in a job file/},
    {what: 'an unknown data set', file: 'test/fixtures/bad/unknown-dataset.yaml', message: /dataset\.name: expected one of mnist, got "cifar10"$/},
  ]
  for (const {what, file, message} of cases) {
    it(`rejects ${what} with one line naming the field, exit code 2, no stack trace`, async () => {
      const run = await runGensyn(['submit', file, '--dry-run'])
      assert.equal(run.exitCode, 2)
      const stderr = String(run.stderr).trim()
      assert.equal(stderr.split('\n').length, 1, `expected one line, got:\n${stderr}`)
      assert.match(stderr, /^Error: /)
      assert.match(stderr, message)
      assert.doesNotMatch(stderr, /\s+at\s.+:\d+:\d+/)
    })
  }

  it('prints the stack trace only with --debug', async () => {
    const run = await runGensyn(['submit', 'test/fixtures/bad/negative-lr.yaml', '--dry-run', '--debug'])
    assert.equal(run.exitCode, 2)
    assert.match(String(run.stderr), /\s+at\s.+:\d+:\d+/)
  })

  it('reports the failure as JSON with --json', async () => {
    const run = await runGensyn(['submit', 'test/fixtures/bad/unknown-layer.yaml', '--dry-run', '--json'])
    assert.equal(run.exitCode, 2)
    const {error} = JSON.parse(String(run.stdout)) as {error: {name: string; message: string}}
    assert.equal(error.name, 'JobSpecError')
    assert.match(error.message, /model\.layers\[1\]\.type/)
  })

  it('--dry-run validates a good spec without any chain (runCommand)', async () => {
    const {stdout, error} = await runCommand(['submit', 'fixtures/jobs/mnist-mlp.yaml', '--dry-run', '--json', '--state-dir', '/nonexistent'], {root: repoRoot})
    assert.equal(error, undefined)
    const result = JSON.parse(stdout) as {dryRun: boolean; specHash: string; escrow: string}
    assert.equal(result.dryRun, true)
    assert.match(result.specHash, /^0x[0-9a-f]{64}$/)
    assert.ok(BigInt(result.escrow) > 0n)
  })

  it('--segments overrides the spec\'s verification.segments (a scenario\'s protocol.samples): the spec submitted is the one with that sample count', async () => {
    const specHashOf = async (args: string[]) => {
      const {stdout, error} = await runCommand(['submit', ...args, '--dry-run', '--json'], {root: repoRoot})
      assert.equal(error, undefined)
      return (JSON.parse(stdout) as {specHash: string}).specHash
    }
    const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-segments-'))
    const edited = path.join(dir, 'job.yaml')
    const original = await readFile('fixtures/jobs/smoke-mlp.yaml', 'utf8')
    assert.match(original, /verification: \{segments: 2\}/)
    await writeFile(edited, original.replace('verification: {segments: 2}', 'verification: {segments: 3}'))
    const overridden = await specHashOf(['fixtures/jobs/smoke-mlp.yaml', '--segments', '3'])
    assert.notEqual(overridden, await specHashOf(['fixtures/jobs/smoke-mlp.yaml']))
    assert.equal(overridden, await specHashOf([edited]))
    await rm(dir, {recursive: true, force: true})
  })

  it('--dry-run of a split job: one task per range, each with its escrow at the default work table; --count copies them', async () => {
    const {stdout, error} = await runCommand(['submit', 'fixtures/scenarios/jobs/smoke-split.yaml', '--dry-run', '--count', '2', '--json'], {root: repoRoot})
    assert.equal(error, undefined)
    type Task = {copy: number; index: number; tasks: number; steps: {start: number; end: number}; workUnits: string; escrow: string}
    const result = JSON.parse(stdout) as {copies: number; maxPrice: string; workUnits: string; escrow: string; tasks: Task[]}
    assert.equal(result.copies, 2)
    assert.deepEqual(
      result.tasks.map((task) => [task.copy, task.index, task.tasks, task.steps.start, task.steps.end]),
      [0, 1].flatMap((copy) => [[copy, 0, 3, 0, 100], [copy, 1, 3, 100, 200], [copy, 2, 3, 200, 300]]),
    )
    // Equal ranges of the same model: equal work, and escrow = ceil(workUnits * maxPrice * 1.2) each.
    const [first] = result.tasks
    for (const task of result.tasks) assert.equal(task.workUnits, first!.workUnits)
    assert.equal(BigInt(first!.escrow), (BigInt(first!.workUnits) * BigInt(result.maxPrice) * 12_000n + 9_999n) / 10_000n)
    assert.equal(BigInt(result.escrow), 6n * BigInt(first!.escrow))
    assert.equal(BigInt(result.workUnits), 6n * BigInt(first!.workUnits))
  })

  it('--dry-run of a parallel split: its rounds of shard tasks; posting one needs --wait, one copy and at most its task count of --task-ids, each refused in one line before any chain', async () => {
    const job = 'fixtures/scenarios/jobs/parallel-split.yaml'
    const {stdout, error} = await runCommand(['submit', job, '--dry-run', '--json'], {root: repoRoot})
    assert.equal(error, undefined)
    const result = JSON.parse(stdout) as {tasks: {index: number; shard: number; tasks: number; steps: {start: number; end: number}}[]}
    assert.deepEqual(
      result.tasks.map((task) => [task.index, task.shard, task.tasks, task.steps.start]),
      [0, 1].flatMap((round) => [0, 1, 2, 3].map((shard) => [round, shard, 2, round * 50])),
    )
    const refusals: [string[], string][] = [
      [[], 'split.shards: a parallel split needs --wait (each round is posted once the one before has settled)'],
      [['--wait', '--count', '2'], '--count: expected 1 for a parallel split (split.shards), got 2'],
      [['--wait', '--task-ids', '1,2,3,4,5,6,7,8,9'], '--task-ids: expected at most 8 task ids (2 rounds x 4 shards of the job), got 9'],
    ]
    for (const [flags, message] of refusals) {
      const run = await runCommand(['submit', job, ...flags, '--state-dir', '/nonexistent'], {root: repoRoot})
      assert.equal(run.stderr.trim(), `Error: ${message}`, flags.join(' '))
      assert.equal(run.error?.oclif?.exit, 2)
    }
  })

  it('--thresholds-from: refuses a malformed address before any chain, and a dry run, in one line each', async () => {
    const bad = await runGensyn(['submit', 'fixtures/jobs/smoke-mlp.yaml', '--thresholds-from', '0x1234', '--state-dir', '/nonexistent'])
    assert.equal(bad.exitCode, 2)
    assert.equal(String(bad.stderr).trim(), 'Error: --thresholds-from: expected an address (0x + 40 hex), got 0x1234')
    const dry = await runGensyn(['submit', 'fixtures/jobs/smoke-mlp.yaml', '--dry-run', '--thresholds-from', '0x90F79bf6EB2c4f870365E785982E1f101E93b906'])
    assert.equal(dry.exitCode, 2)
    assert.equal(String(dry.stderr).trim().split('\n').length, 1)
    assert.match(String(dry.stderr), /--thresholds-from.*--dry-run|--dry-run.*--thresholds-from/)
  })

  it('refuses to submit without a devnet or --rpc-url, in one line', async () => {
    const run = await runGensyn(['submit', 'fixtures/jobs/mnist-mlp.yaml', '--state-dir', '/nonexistent'])
    assert.notEqual(run.exitCode, 0)
    assert.equal(String(run.stderr).trim().split('\n').length, 1)
    assert.match(String(run.stderr), /devnet/)
  })
})

describe('gensyn submit --thresholds-from (real anvil)', function () {
  this.timeout(120_000)
  let devnet: LocalDevnet

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 0, verifiers: 1})
  })
  after(() => devnet?.stop())

  it("pins the poster's profile in the spec it puts on chain, and says so in its result", async () => {
    const poster = requireSigner(await connect({stateDir: devnet.stateDir, account: 2}))
    const spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    const {profileHash} = await postProfile(poster, {spec, profile: await profileJob({spec, runtimes: ['cpu', 'wasm'], segments: 1})})
    const {stdout, error} = await runCommand(
      ['submit', 'fixtures/jobs/smoke-mlp.yaml', '--account', '1', '--thresholds-from', poster.account.address.toLowerCase(), '--state-dir', devnet.stateDir, '--json'],
      {root: repoRoot},
    )
    assert.equal(error, undefined)
    const result = JSON.parse(stdout) as {taskId: string; profiles: Hex[]}
    assert.deepEqual(result.profiles, [profileHash])
    const onChain = await loadTaskSpec(poster, await getTask(poster, {taskId: BigInt(result.taskId)}))
    assert.deepEqual(onChain.verification.profiles, [profileHash])
  })
})
