import assert from 'node:assert/strict'
import {cp, mkdtemp, readFile, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {loadJobSpec} from '../../ml/spec/index.js'
import {trainJob} from '../../ml/train/index.js'
import {packageRoot} from '../../sim/scenario.js'
import {createLocalStore} from '../../store/index.js'
import {BundleError, readBundle, verifyBundle, writeBundle} from './index.js'

describe('proof bundles: writeBundle, readBundle, verifyBundle (real training)', function () {
  this.timeout(120_000)
  let work: string
  let good: string

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'gensyn-bundle-'))
    const spec = await loadJobSpec(path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml'))
    const store = createLocalStore(path.join(work, 'store'))
    const trained = await trainJob({spec, store})
    good = path.join(work, 'good')
    await writeBundle({spec, store, manifest: trained.manifest, outDir: good})
  })
  after(async () => {
    await rm(work, {recursive: true, force: true})
  })

  /** A copy of the good bundle with `edit` applied to it. */
  async function variant(name: string, edit: (dir: string) => Promise<void>): Promise<string> {
    const dir = path.join(work, name)
    await cp(good, dir, {recursive: true})
    await edit(dir)
    return dir
  }

  async function editProof(dir: string, change: (proof: Record<string, any>) => void): Promise<void> {
    const proof = JSON.parse(await readFile(path.join(dir, 'proof.json'), 'utf8')) as Record<string, any>
    change(proof)
    await writeFile(path.join(dir, 'proof.json'), JSON.stringify(proof))
  }

  async function assertUnusable(dir: string, message: RegExp): Promise<void> {
    await assert.rejects(readBundle(dir), (error: unknown) => {
      assert.ok(error instanceof BundleError, `expected a BundleError, got ${String(error)}`)
      assert.equal(error.exitCode, 2)
      assert.match(error.shortMessage, message)
      assert.equal(error.shortMessage.includes('\n'), false)
      return true
    })
  }

  it('reads back what it wrote, and an honest bundle verifies on every sample', async () => {
    const bundle = await readBundle(good)
    assert.equal(bundle.manifest.checkpoints.length, 5)
    for (const seed of ['1', '2', '3']) {
      const {report} = await verifyBundle({dir: good, seed, segments: 2})
      assert.equal(report.accepted, true, report.reason)
    }
  })

  it('makes sampling repeatable with a seed', async () => {
    const first = await verifyBundle({dir: good, seed: 'same', segments: 2})
    const second = await verifyBundle({dir: good, seed: 'same', segments: 2})
    assert.equal(first.randomness, second.randomness)
    assert.deepEqual(first.report.selectedSegments, second.report.selectedSegments)
  })

  it('unusable: a folder that is not there', () => assertUnusable(path.join(work, 'nowhere'), /bundle not found/))

  it('unusable: proof.json missing', async () => {
    await assertUnusable(await variant('no-proof', (dir) => rm(path.join(dir, 'proof.json'))), /proof\.json is missing/)
  })

  it('unusable: a checkpoint file missing', async () => {
    const dir = await variant('no-checkpoint', (dir) => rm(path.join(dir, 'checkpoints/step-00000100.ckpt')))
    await assertUnusable(dir, /checkpoints\[2\]\.file: .*step-00000100\.ckpt is missing/)
  })

  it('unusable: a truncated checkpoint', async () => {
    const dir = await variant('truncated', async (dir) => {
      const file = path.join(dir, 'checkpoints/step-00000050.ckpt')
      const bytes = await readFile(file)
      await writeFile(file, bytes.subarray(0, bytes.length - 100))
    })
    await assertUnusable(dir, /checkpoints\[1\]\.file: .* is truncated or malformed/)
  })

  it('unusable: a wrong manifest type', async () => {
    await assertUnusable(await variant('wrong-type', (dir) => editProof(dir, (proof) => void (proof.type = 'tfjs-model'))), /type: expected "gensyn-proof-bundle", got "tfjs-model"/)
  })

  it('unusable: a path outside the bundle, relative, absolute or through a symlink', async () => {
    await assertUnusable(
      await variant('escape-relative', (dir) => editProof(dir, (proof) => void (proof.checkpoints[1].file = '../good/checkpoints/step-00000050.ckpt'))),
      /checkpoints\[1\]\.file: expected a path inside the bundle/,
    )
    await assertUnusable(
      await variant('escape-absolute', (dir) => editProof(dir, (proof) => void (proof.spec.file = path.join(good, 'spec.json')))),
      /spec\.file: expected a path inside the bundle/,
    )
    const dir = await variant('escape-symlink', async (dir) => {
      await symlink(path.join(good, 'checkpoints/step-00000050.ckpt'), path.join(dir, 'checkpoints/link.ckpt'))
      await editProof(dir, (proof) => void (proof.checkpoints[1].file = 'checkpoints/link.ckpt'))
    })
    await assertUnusable(dir, /checkpoints\[1\]\.file: expected a path inside the bundle/)
  })

  it('unusable: a spec that is not a job spec', async () => {
    const dir = await variant('bad-spec', (dir) => writeFile(path.join(dir, 'spec.json'), JSON.stringify({name: 'x'})))
    await assertUnusable(dir, /spec\.json: model/)
  })
})
