import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {repoRoot, runGensyn} from '../helpers/cli.js'

// The built CLI (dist/, so the compiled worker entry) training a 4-micro-batch job on worker threads.
describe('gensyn solve --offline --threads and verify --proof --threads (real processes, real training)', function () {
  this.timeout(120_000)
  let work: string
  let job: string

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'gensyn-threads-cli-'))
    job = path.join(work, 'job.yaml')
    const smoke = await readFile(path.join(repoRoot, 'fixtures/jobs/smoke-mlp.yaml'), 'utf8')
    await writeFile(job, smoke.replace('name: smoke-mlp', 'name: smoke-mlp-micro').replace('steps: 200', 'steps: 40\n  microBatches: 4').replace('checkpointInterval: 50', 'checkpointInterval: 20'))
  })
  after(async () => {
    await rm(work, {recursive: true, force: true})
  })

  it('a bundle solved on 2 threads is accepted exactly on 1, and 1 thread solves the same Merkle root', async () => {
    const two = await runGensyn(['solve', '--offline', job, '--out', path.join(work, 'two'), '--threads', '2', '--json'])
    assert.equal(two.exitCode, 0, String(two.stderr))
    const trained = JSON.parse(String(two.stdout)) as {checkpoints: number; merkleRoot: string}
    assert.equal(trained.checkpoints, 3)

    const verified = await runGensyn(['verify', '--proof', path.join(work, 'two'), '--threads', '1', '--segments', '2', '--seed', '7', '--json'])
    assert.equal(verified.exitCode, 0, String(verified.stderr))
    const view = JSON.parse(String(verified.stdout)) as {accepted: boolean; segments: {mode: string; hashMatch: boolean}[]}
    assert.equal(view.accepted, true)
    assert.deepEqual(view.segments.map((s) => `${s.mode} ${s.hashMatch}`), ['exact true', 'exact true'])

    const one = await runGensyn(['solve', '--offline', job, '--out', path.join(work, 'one'), '--json'], {env: {FORCE_COLOR: '0', GENSYN_THREADS: '1'}})
    assert.equal(one.exitCode, 0, String(one.stderr))
    assert.equal((JSON.parse(String(one.stdout)) as {merkleRoot: string}).merkleRoot, trained.merkleRoot)
  })

  it('refuses a bad GENSYN_THREADS with exit 2 and one line', async () => {
    const run = await runGensyn(['solve', '--offline', job, '--out', path.join(work, 'bad')], {env: {FORCE_COLOR: '0', GENSYN_THREADS: 'many'}})
    assert.equal(run.exitCode, 2)
    const stderr = String(run.stderr).trim()
    assert.match(stderr, /GENSYN_THREADS: expected a positive integer \(worker threads\), got "many"/)
    assert.equal(stderr.split('\n').filter((line) => !line.startsWith('Docs:')).length, 1, stderr)
  })
})
