import assert from 'node:assert/strict'
import {mkdtemp, readdir, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {Ajv2020} from 'ajv/dist/2020.js'
import {parse as parseYaml} from 'yaml'

import {InvalidInputError} from '../errors/base.js'
import {loadJobSpec} from '../ml/spec/index.js'
import {actorRoster} from './actorRoster.js'
import {scenarioAccounts} from './devnetAccounts.js'
import {loadScenario, resolveDefaultScenario} from './scenario.js'
import {scenarioSchemaJson} from './scenarioSchemaJson.js'

const scenarioDir = 'fixtures/scenarios'
const shipped = (await readdir(scenarioDir)).filter((name) => name.endsWith('.yaml')).sort()
const validate = new Ajv2020({strict: false}).compile(JSON.parse(scenarioSchemaJson()) as object)

async function writeScenario(text: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-scenario-'))
  const file = path.join(dir, 'scenario.yaml')
  await writeFile(file, text)
  return file
}

async function loadError(text: string): Promise<string> {
  const file = await writeScenario(text)
  const error = await loadScenario(file).then(
    () => undefined,
    (caught: unknown) => caught,
  )
  assert.ok(error instanceof InvalidInputError, `expected an InvalidInputError, got ${String(error)}`)
  assert.ok(!error.shortMessage.includes('\n'), 'one line')
  return error.shortMessage.slice(file.length + 2)
}

describe('scenarios', () => {
  it('ships the library the issue names, each pointing at the schema', async () => {
    for (const name of ['smoke', 'honest-market', 'cheaters', 'whistleblowers', 'supply-shock', 'dropout']) assert.ok(shipped.includes(`${name}.yaml`), name)
    for (const name of shipped) {
      const text = await readFile(path.join(scenarioDir, name), 'utf8')
      assert.ok(text.startsWith('# yaml-language-server: $schema=../../schema/scenario.schema.json\n'), name)
    }
  })

  it('loads every shipped scenario, whose jobs exist and are valid job specs', async () => {
    for (const name of shipped) {
      const scenario = await loadScenario(path.join(scenarioDir, name))
      assert.equal(`${scenario.name}.yaml`, name, 'the file is named after the scenario')
      assert.ok(scenario.description, `${name}: a description`)
      for (const job of scenario.jobs) await loadJobSpec(job.path)
    }
  })

  it('the JSON Schema accepts every shipped scenario and the embedded default', async () => {
    for (const name of shipped) {
      const raw = parseYaml(await readFile(path.join(scenarioDir, name), 'utf8')) as unknown
      assert.ok(validate(raw), `${name}: ${JSON.stringify(validate.errors)}`)
    }
    // The embedded default in its parsed form (every default filled in) is a valid scenario file too.
    const {source: _source, ...embedded} = resolveDefaultScenario()
    const asFile = {...embedded, jobs: embedded.jobs.map(({path: _path, ...job}) => job)}
    assert.ok(validate(asFile), JSON.stringify(validate.errors))
  })

  it('the JSON Schema rejects what the loader rejects', async () => {
    const bad = [
      {name: 'x', jobs: []},
      {name: 'x', jobs: [{file: 'a.yaml'}], actors: {solvers: [{strategy: 'bribe'}]}},
      {name: 'x', jobs: [{file: 'a.yaml'}], protocol: {taxBps: 10_001}},
      {name: 'x', jobs: [{file: 'a.yaml'}], expect: {verdict: 'maybe'}},
      {name: 'x', jobs: [{file: 'a.yaml'}], chain: {blockTime: 0}},
      {name: 'x', jobs: [{file: 'a.yaml'}], typo: 1},
      {name: 'x'},
      {name: 'x', crowd: {processes: 0}},
    ]
    for (const scenario of bad) assert.equal(validate(scenario), false, JSON.stringify(scenario))
  })

  it('describes every field in the JSON Schema, so it can be written from the schema alone', () => {
    const schema = JSON.parse(scenarioSchemaJson()) as Record<string, unknown>
    const undocumented: string[] = []
    const walk = (node: unknown, where: string) => {
      if (typeof node !== 'object' || node === null) return
      const {properties} = node as {properties?: Record<string, {description?: string}>}
      for (const [key, value] of Object.entries(properties ?? {})) {
        const described = value.description ?? (value as {anyOf?: {description?: string}[]}).anyOf?.find((option) => option.description)?.description
        // disputes.min / .outcomes are described on their own; the disputes object is self-explanatory.
        if (!described && key !== 'disputes') undocumented.push(`${where}${key}`)
        walk(value, `${where}${key}.`)
      }
      for (const child of [(node as {items?: unknown}).items, ...((node as {anyOf?: unknown[]}).anyOf ?? [])]) walk(child, where)
    }
    walk(schema, '')
    assert.deepEqual(undocumented, [])
  })

  it('has an up-to-date committed JSON schema (npm run build:schema)', async () => {
    assert.equal(await readFile('schema/scenario.schema.json', 'utf8'), scenarioSchemaJson(), 'schema/scenario.schema.json is stale: run npm run build:schema')
  })

  it('names the field and the expectation in one line', async () => {
    assert.match(await loadError('name: x\njobs: [{file: a.yaml}]\nprotocol: {taxBps: 20000}\n'), /^protocol\.taxBps: .*10000/)
    assert.match(await loadError('name: x\njobs: [{file: a.yaml}]\nactors: {solvers: [{strategy: bribe}]}\n'), /^actors\.solvers(\[0\]\.strategy)?: /)
    assert.equal(await loadError('name: x\njobs: []\n'), 'jobs: expected at least one job (or a crowd)')
    assert.equal(await loadError('name: x\ncrowd: {solvers: 2, cheaters: 2}\n'), 'crowd.solvers: expected at least one honest solver (solvers > cheaters)')
    assert.equal(await loadError('name: x\ncrowd: {tasks: 0}\n'), 'crowd.tasks: Too small: expected number to be >=1')
    assert.match(await loadError('name: x\njobs: [{file: a.yaml}]\nuntilSetled: true\n'), /untilSetled/)
    assert.match(await loadError('name: x\njobs: [{file: a.yaml}]\nprotocol: {samples: 0}\n'), /^protocol\.samples: /)
    assert.equal(await loadError('name: x\njobs: [{file: a.yaml}, {file: b.yaml, compareWith: 1}]\n'), 'jobs[1].compareWith: expected the index of an earlier job (below 1), got 1')
    assert.match(await loadError('name: [x\n'), /malformed YAML/)
  })

  it('defaults: every task must settle, the run is kept up unless untilSettled or durationSeconds ends it', async () => {
    const scenario = await loadScenario(await writeScenario('name: x\njobs: [{file: a.yaml}]\n'))
    assert.equal(scenario.expect.allSettled, true)
    assert.equal(scenario.untilSettled, false)
    assert.equal(scenario.durationSeconds, undefined)
    assert.equal(scenario.protocol.samples, undefined)
    const timed = await loadScenario(await writeScenario('name: x\njobs: [{file: a.yaml}]\ndurationSeconds: 30\nexpect: {allSettled: false}\nprotocol: {samples: 3}\n'))
    assert.equal(timed.durationSeconds, 30)
    assert.equal(timed.expect.allSettled, false)
    assert.equal(timed.protocol.samples, 3)
  })

  it('per-actor backends, verifier modes and a profile: parsed, passed to the actors, bad values named in one line', async () => {
    const scenario = await loadScenario(path.join(scenarioDir, 'gpu-solver.yaml'))
    assert.deepEqual(scenario.profile, {runtimes: ['webgpu', 'wasm'], seeds: 3})
    const roster = actorRoster(scenario, scenarioAccounts(scenario.actors))
    const solvers = roster.filter((entry) => entry.role === 'solver')
    const verifiers = roster.filter((entry) => entry.role === 'verifier')
    assert.deepEqual(solvers.map((entry) => entry.backend), ['webgpu', 'webgpu'])
    assert.deepEqual(verifiers.map((entry) => entry.backend), [undefined, undefined], 'verifiers keep the scenario backend (wasm)')
    for (const verifier of verifiers) assert.deepEqual(verifier.args.slice(verifier.args.indexOf('--mode'), verifier.args.indexOf('--mode') + 2), ['--mode', 'tolerance'])
    const smoke = await loadScenario(path.join(scenarioDir, 'smoke.yaml'))
    const plain = actorRoster(smoke, scenarioAccounts(smoke.actors))
    assert.ok(plain.filter((entry) => entry.role === 'verifier').every((entry) => entry.args.includes('exact')))
    assert.match(await loadError('name: x\njobs: [{file: a.yaml}]\nactors: {solvers: [{backend: tpu}]}\n'), /^actors\.solvers(\[0\]\.backend)?: /)
    assert.match(await loadError('name: x\njobs: [{file: a.yaml}]\nactors: {verifiers: [{mode: loose}]}\n'), /^actors\.verifiers(\[0\]\.mode)?: /)
    assert.match(await loadError('name: x\njobs: [{file: a.yaml}]\nprofile: {runtimes: [auto]}\n'), /^profile\.runtimes\[0\]: /)
  })
})
