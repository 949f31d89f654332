import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {cp, mkdtemp, readFile, rm, truncate, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {runGensyn} from '../helpers/cli.js'

describe('gensyn solve --offline and verify --proof (real processes, real training)', function () {
  this.timeout(120_000)
  let work: string
  let bundle: string

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'gensyn-offline-'))
    bundle = path.join(work, 'proof')
    const solved = await runGensyn(['solve', '--offline', 'fixtures/jobs/smoke-mlp.yaml', '--out', bundle, '--json'])
    assert.equal(solved.exitCode, 0, String(solved.stderr))
    const result = JSON.parse(String(solved.stdout)) as {checkpoints: number; runtime: string; warnings: string[]}
    assert.equal(result.checkpoints, 5)
    assert.match(result.runtime, /^wasm/)
    assert.deepEqual(result.warnings, [])
  })
  after(async () => {
    await rm(work, {recursive: true, force: true})
  })

  it('accepts the bundle (exit 0) and reports each replayed segment', async () => {
    const run = await runGensyn(['verify', '--proof', bundle, '--segments', '3', '--seed', '42', '--json'])
    assert.equal(run.exitCode, 0, String(run.stderr))
    const view = JSON.parse(String(run.stdout)) as {accepted: boolean; segments: {match: boolean}[]; selectedSegments: number[]}
    assert.equal(view.accepted, true)
    assert.equal(view.segments.length, 3)
    assert.ok(view.segments.every((segment) => segment.match))
    assert.ok(view.selectedSegments.includes(3), 'the final segment was not checked')
  })

  it('binds the verdict to a job: --job accepts its own bundle, rejects (exit 1) one for another job, and without it says internal consistency only', async () => {
    const bound = await runGensyn(['verify', '--proof', bundle, '--job', 'fixtures/jobs/smoke-mlp.yaml', '--segments', '1', '--seed', '1', '--json'])
    assert.equal(bound.exitCode, 0, String(bound.stderr))
    const view = JSON.parse(String(bound.stdout)) as {accepted: boolean; scope: string; jobSpecHash: string; notice?: string}
    assert.equal(view.scope, 'job')
    assert.match(view.jobSpecHash, /^0x[0-9a-f]{64}$/)
    assert.equal(view.notice, undefined)

    const other = await runGensyn(['verify', '--proof', bundle, '--job', 'fixtures/jobs/mnist-mlp.yaml', '--json'])
    assert.equal(other.exitCode, 1, String(other.stderr))
    const rejected = JSON.parse(String(other.stdout)) as {accepted: boolean; reason: string; checks: {specHash: string}; segments: unknown[]}
    assert.equal(rejected.accepted, false)
    assert.equal(rejected.checks.specHash, 'fail')
    assert.deepEqual(rejected.segments, [])
    assert.match(rejected.reason, /the proof is for another job/)

    const byHash = await runGensyn(['verify', '--proof', bundle, '--spec-hash', `0x${'12'.repeat(32)}`])
    assert.equal(byHash.exitCode, 1)
    assert.match(String(byHash.stdout), /verdict: rejected: manifest specHash: expected 0x(12){32} \(the job's\)/)

    const unbound = await runGensyn(['verify', '--proof', bundle, '--segments', '1', '--seed', '1'])
    assert.equal(unbound.exitCode, 0, String(unbound.stderr))
    assert.match(String(unbound.stdout), /^note: only internal consistency was checked: no --job or --spec-hash named the job/m)
    const badHash = await runGensyn(['verify', '--proof', bundle, '--spec-hash', '0x12', '--json'])
    assert.equal(badHash.exitCode, 2)
    assert.match(JSON.parse(String(badHash.stdout)).error.message, /^--spec-hash: expected 0x followed by 64 hex digits, got "0x12"/)
  })

  it('refuses hostile bundles with exit 2 and one line, never a stack trace or a hang: duplicate keys, a fifo, a sparse 8 GiB file', async () => {
    const proof = await readFile(path.join(bundle, 'proof.json'), 'utf8')
    const cases: [string, (dir: string) => Promise<unknown>, RegExp][] = [
      ['duplicate-key', (dir) => writeFile(path.join(dir, 'proof.json'), proof.replace('{', `{"merkleRoot":"0x${'0'.repeat(64)}",`)), /^Error: proof\.json: expected canonical JSON/],
      ['fifo', async (dir) => {
        await rm(path.join(dir, 'spec.json'))
        execFileSync('mkfifo', [path.join(dir, 'spec.json')])
      }, /^Error: proof\.json: spec\.file: expected spec\.json to be a regular file, got a fifo/],
      ['sparse', (dir) => truncate(path.join(dir, 'checkpoints/step-00000050.ckpt'), 8 * 1024 ** 3), /^Error: proof\.json: checkpoints\[1\]\.file: .* is 8589934592 bytes, expected at most \d+/],
    ]
    for (const [name, damage, message] of cases) {
      const dir = path.join(work, `hostile-${name}`)
      await cp(bundle, dir, {recursive: true})
      await damage(dir)
      const run = await runGensyn(['verify', '--proof', dir])
      assert.equal(run.exitCode, 2, `${name}: ${String(run.stderr)}`)
      const stderr = String(run.stderr).trim()
      assert.equal(stderr.split('\n').length, 1, stderr)
      assert.match(stderr, message)
      assert.doesNotMatch(stderr, /\bat .*\.(js|ts):\d+/)
      const json = await runGensyn(['verify', '--proof', dir, '--json'])
      assert.equal(json.exitCode, 2)
      assert.match((JSON.parse(String(json.stdout)) as {error: {message: string}}).error.message, message.source.startsWith('^Error: ') ? new RegExp(message.source.slice(8)) : message)
    }
  })

  it('rejects (exit 1) a bundle whose checkpoint bytes were changed after the fact', async () => {
    const tampered = path.join(work, 'tampered')
    await cp(bundle, tampered, {recursive: true})
    const file = path.join(tampered, 'checkpoints/step-00000100.ckpt')
    const bytes = await readFile(file)
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1)
    await writeFile(file, bytes)
    const run = await runGensyn(['verify', '--proof', tampered, '--seed', '1', '--json'])
    assert.equal(run.exitCode, 1, String(run.stdout))
    const view = JSON.parse(String(run.stdout)) as {accepted: boolean; reason: string}
    assert.equal(view.accepted, false)
    assert.match(view.reason, /step-00000100|100/)
  })

  it('refuses an unusable bundle with exit 2 and one line', async () => {
    const broken = path.join(work, 'broken')
    await cp(bundle, broken, {recursive: true})
    await rm(path.join(broken, 'checkpoints/step-00000150.ckpt'))
    const run = await runGensyn(['verify', '--proof', broken])
    assert.equal(run.exitCode, 2)
    assert.equal(String(run.stderr).trim().split('\n').length, 1)
    assert.match(String(run.stderr), /checkpoints\[3\]\.file: .*missing/)
  })

  it('asks for a job file and --out in one line each', async () => {
    const noJob = await runGensyn(['solve', '--offline', '--out', path.join(work, 'x')])
    assert.equal(noJob.exitCode, 2)
    assert.match(String(noJob.stderr), /^Error: job: expected a job spec file with --offline/)
    const noOut = await runGensyn(['solve', '--offline', 'fixtures/jobs/smoke-mlp.yaml'])
    assert.equal(noOut.exitCode, 2)
    assert.match(String(noOut.stderr), /--out/)
  })

  it('accepts a cpu-trained bundle on wasm in tolerance mode with profiled thresholds, and calls exact mode inconclusive', async () => {
    const thresholds = path.join(work, 'thresholds.json')
    const profiled = await runGensyn(['profile', '--job', 'fixtures/jobs/smoke-mlp.yaml', '--segments', '2', '--out', thresholds, '--json'])
    assert.equal(profiled.exitCode, 0, String(profiled.stderr))
    const profile = JSON.parse(String(profiled.stdout)) as {thresholds: {l2: number}; runtimeClass: string; warnings: string[]}
    assert.ok(profile.thresholds.l2 > 0)
    // 2 segments on wasm and cpu: 4 replays, the cpu ones inexact, so the profile is flagged as small
    assert.deepEqual(profile.warnings, ['thresholds from 4 honest replays, fewer than 200: a rarer honest divergence can fall outside them (docs/verification.md); add --seeds'])
    assert.match(profile.runtimeClass, /wasm.* \+ cpu/)

    const cpuBundle = path.join(work, 'cpu-proof')
    const solved = await runGensyn(['solve', '--offline', 'fixtures/jobs/smoke-mlp.yaml', '--out', cpuBundle, '--backend', 'cpu'])
    assert.equal(solved.exitCode, 0, String(solved.stderr))
    const tolerant = await runGensyn(['verify', '--proof', cpuBundle, '--mode', 'tolerance', '--thresholds', thresholds, '--backend', 'wasm', '--segments', '4', '--seed', '5', '--json'])
    assert.equal(tolerant.exitCode, 0, String(tolerant.stdout) + String(tolerant.stderr))
    const view = JSON.parse(String(tolerant.stdout)) as {segments: {hashMatch: boolean; match: boolean}[]}
    assert.ok(view.segments.length === 4 && view.segments.every((segment) => segment.match))
    assert.ok(view.segments.some((segment) => !segment.hashMatch), 'cpu and wasm agreed bit for bit: nothing was tolerated')

    const exact = await runGensyn(['verify', '--proof', cpuBundle, '--backend', 'wasm', '--seed', '5'])
    assert.equal(exact.exitCode, 2)
  })

  it('a job on its own data (weather-csv, by short name): the bundle carries the data set; profiled thresholds accept a cpu-trained bundle on wasm, and a changed data file is refused', async () => {
    const ownBundle = path.join(work, 'own-proof')
    const solved = await runGensyn(['solve', '--offline', 'weather-csv', '--out', ownBundle, '--backend', 'cpu', '--json'])
    assert.equal(solved.exitCode, 0, String(solved.stderr))
    const manifest = JSON.parse(await readFile(path.join(ownBundle, 'proof.json'), 'utf8')) as {datasetHash: string; data: {file: string; sha256: string}}
    assert.equal(manifest.data.sha256, manifest.datasetHash)
    const thresholds = path.join(work, 'own-thresholds.json')
    const profiled = await runGensyn(['profile', '--job', 'weather-csv', '--segments', '2', '--out', thresholds, '--json'])
    assert.equal(profiled.exitCode, 0, String(profiled.stderr))
    // a fresh process: the data comes from the bundle alone
    const tolerant = await runGensyn(['verify', '--proof', ownBundle, '--mode', 'tolerance', '--thresholds', thresholds, '--backend', 'wasm', '--segments', '4', '--seed', '3', '--json'])
    assert.equal(tolerant.exitCode, 0, String(tolerant.stdout) + String(tolerant.stderr))
    assert.equal((JSON.parse(String(tolerant.stdout)) as {accepted: boolean}).accepted, true)
    const dataFile = path.join(ownBundle, manifest.data.file)
    const bytes = await readFile(dataFile)
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1
    await writeFile(dataFile, bytes)
    const changed = await runGensyn(['verify', '--proof', ownBundle, '--mode', 'tolerance', '--thresholds', thresholds, '--backend', 'wasm'])
    assert.equal(changed.exitCode, 2)
    assert.match(String(changed.stderr).trim(), /^Error: proof\.json: data\.file: data\/dataset\.bin does not hash to 0x[0-9a-f]{64}$/)
  })

  it('rejects an adversary bundle (skip-steps) with exit 1', async () => {
    const cheat = path.join(work, 'skip-steps')
    const solved = await runGensyn(['solve', '--offline', 'fixtures/jobs/smoke-mlp.yaml', '--out', cheat, '--strategy', 'skip-steps'])
    assert.equal(solved.exitCode, 0, String(solved.stderr))
    const run = await runGensyn(['verify', '--proof', cheat, '--seed', '9'])
    assert.equal(run.exitCode, 1)
    assert.match(String(run.stdout), /verdict: rejected/)
  })

  it('warns that a private job file trains and profiles on raw data here, and still does its work', async () => {
    const job = 'test/fixtures/private-smoke.yaml'
    const solve = (out: string, json: string[]) => runGensyn(['solve', '--offline', job, '--out', path.join(work, out), '--strategy', 'random-weights', ...json])
    const shown = await solve('private-proof', [])
    assert.equal(shown.exitCode, 0, String(shown.stderr))
    assert.match(String(shown.stderr), /Warning: privacy: the orthogonal mapping is not applied off chain/)
    const solved = await solve('private-proof-json', ['--json'])
    assert.equal(solved.exitCode, 0, String(solved.stderr))
    const bundle = JSON.parse(String(solved.stdout)) as {warnings: string[]}
    assert.equal(bundle.warnings.length, 1)
    assert.match(
      bundle.warnings[0]!,
      /^privacy: the orthogonal mapping is not applied off chain \(its key needs your secret and the block hash at submission\), so this runs on raw MNIST: the bundle is no proof for a private task/,
    )

    const profiled = await runGensyn(['profile', '--job', job, '--segments', '1', '--json'])
    assert.equal(profiled.exitCode, 0, String(profiled.stderr))
    const profile = JSON.parse(String(profiled.stdout)) as {warnings: string[]; thresholds: {l2: number}}
    assert.equal(profile.warnings.length, 2)
    assert.match(profile.warnings[0]!, /raw MNIST: these thresholds are for raw data; `gensyn profile --task ID` profiles a submitted task on its mapped data$/)
    assert.match(profile.warnings[1]!, /^thresholds from 2 honest replays, fewer than 200/)
    assert.ok(profile.thresholds.l2 > 0)
  })

  it('plans: the chance of catching a given share of faked segments', async () => {
    const run = await runGensyn(['verify', '--plan', '--job', 'fixtures/jobs/smoke-mlp.yaml', '--faked', '0.34,1', '--json'])
    assert.equal(run.exitCode, 0, String(run.stderr))
    const table = JSON.parse(String(run.stdout)) as {segmentCount: number; sampled: number; rows: {faked: number; detection: number}[]}
    // smoke-mlp: 4 segments, 2 replayed (the final + 1 of 3): one faked segment is caught 1 time in 3.
    assert.equal(table.segmentCount, 4)
    assert.deepEqual(table.rows.map((row) => [row.faked, Number(row.detection.toFixed(6))]), [
      [2, 0.666667],
      [3, 1],
    ])
  })
})
