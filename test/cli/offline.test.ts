import assert from 'node:assert/strict'
import {cp, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
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
    const result = JSON.parse(String(solved.stdout)) as {checkpoints: number; runtime: string}
    assert.equal(result.checkpoints, 5)
    assert.match(result.runtime, /^wasm/)
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
})
