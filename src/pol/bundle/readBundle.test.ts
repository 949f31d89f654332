import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {cp, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {loadJobSpec} from '../../ml/spec/index.js'
import {trainJob} from '../../ml/train/index.js'
import {packageRoot} from '../../util/packageRoot.js'
import {canonicalJson} from '../../store/canonicalJson.js'
import {createLocalStore} from '../../store/index.js'
import {specHash} from '../../ml/spec/index.js'
import {checkpointBytes} from './bundleLimits.js'
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
    await writeFile(path.join(dir, 'proof.json'), canonicalJson(proof))
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
    await assertUnusable(dir, /checkpoints\[1\]\.file: expected a path inside the bundle, got "checkpoints\/link\.ckpt" \(checkpoints\/link\.ckpt is a symbolic link/)
    // a link that stays inside the bundle is refused too: a bundle holds regular files only
    const inside = await variant('inside-symlink', async (dir) => {
      await symlink('step-00000050.ckpt', path.join(dir, 'checkpoints/link.ckpt'))
      await editProof(dir, (proof) => void (proof.checkpoints[1].file = 'checkpoints/link.ckpt'))
    })
    await assertUnusable(inside, /checkpoints\[1\]\.file: .*is a symbolic link/)
    const dotted = await variant('dotted', (dir) => editProof(dir, (proof) => void (proof.checkpoints[1].file = 'checkpoints/./step-00000050.ckpt')))
    await assertUnusable(dotted, /checkpoints\[1\]\.file: expected a path inside the bundle/)
  })

  it('unusable: a folder, a fifo or a device where a file belongs, without blocking on the fifo', async () => {
    const folder = await variant('folder-spec', async (dir) => {
      await rm(path.join(dir, 'spec.json'))
      await mkdir(path.join(dir, 'spec.json'))
    })
    await assertUnusable(folder, /spec\.file: expected spec\.json to be a regular file, got a folder/)
    const fifo = await variant('fifo-checkpoint', async (dir) => {
      await rm(path.join(dir, 'checkpoints/step-00000050.ckpt'))
      execFileSync('mkfifo', [path.join(dir, 'checkpoints/step-00000050.ckpt')])
    })
    await assertUnusable(fifo, /checkpoints\[1\]\.file: expected checkpoints\/step-00000050\.ckpt to be a regular file, got a fifo/)
    const device = await variant('device', (dir) => editProof(dir, (proof) => void (proof.spec.file = '/dev/zero')))
    await assertUnusable(device, /spec\.file: expected a path inside the bundle/)
  })

  it('unusable: duplicate keys or any other non-canonical JSON in proof.json and spec.json', async () => {
    const text = await readFile(path.join(good, 'proof.json'), 'utf8')
    assert.equal(text, canonicalJson(JSON.parse(text)), 'writeBundle writes canonical proof.json')
    // the last "merkleRoot" is the one JSON.parse would keep
    const duplicate = await variant('duplicate-key', (dir) => writeFile(path.join(dir, 'proof.json'), text.replace('{', `{"merkleRoot":"0x${'0'.repeat(64)}",`)))
    await assertUnusable(duplicate, /proof\.json: expected canonical JSON \(sorted keys, each once, no whitespace\)/)
    const pretty = await variant('pretty', (dir) => writeFile(path.join(dir, 'proof.json'), JSON.stringify(JSON.parse(text), null, 2)))
    await assertUnusable(pretty, /proof\.json: expected canonical JSON/)
    const spec = await readFile(path.join(good, 'spec.json'), 'utf8')
    const respelled = await variant('respelled-spec', (dir) => writeFile(path.join(dir, 'spec.json'), spec.replace('"steps":200', '"steps":2e2')))
    await assertUnusable(respelled, /spec\.json: expected canonical JSON/)
    const deep = await variant('deep', (dir) => writeFile(path.join(dir, 'proof.json'), `${'['.repeat(100_000)}${']'.repeat(100_000)}`))
    await assertUnusable(deep, /proof\.json: expected JSON nested at most 64 deep/)
    const infinite = await variant('infinite', (dir) => writeFile(path.join(dir, 'proof.json'), text.replace(/"checkpointInterval":50/, '"checkpointInterval":1e999')))
    await assertUnusable(infinite, /proof\.json: \$\.checkpointInterval: expected a finite number, got Infinity/)
  })

  it('unusable: a spec whose bytes do not hash to the claim, or beyond the work limits', async () => {
    const claim = await variant('spec-claim', (dir) => editProof(dir, (proof) => void (proof.spec.sha256 = `0x${'1'.repeat(64)}`)))
    await assertUnusable(claim, /proof\.json: spec\.sha256: expected 0x[0-9a-f]{64} \(the hash of spec\.json\), got 0x1{64}/)
    const huge = await variant('huge-spec', async (dir) => {
      const spec = JSON.parse(await readFile(path.join(dir, 'spec.json'), 'utf8')) as Record<string, any>
      spec.training.steps = 10_000_000
      spec.proof.checkpointInterval = 1
      const bytes = canonicalJson(spec)
      await writeFile(path.join(dir, 'spec.json'), bytes)
      await editProof(dir, (proof) => void (proof.spec.sha256 = proof.specHash = specHash(spec as never)))
    })
    await assertUnusable(huge, /spec\.json: training\.steps: expected at most 100000 \(protocol limit maxSteps\), got 10000000/)
  })

  it('unusable: more checkpoints than the schedule, or a checkpoint file larger than the job\'s checkpoints', async () => {
    const spec = (await readBundle(good)).spec
    assert.equal((await stat(path.join(good, 'checkpoints/step-00000050.ckpt'))).size, checkpointBytes(spec), 'the size limit is exact')
    const many = await variant('many', (dir) => editProof(dir, (proof) => void proof.checkpoints.push(...proof.checkpoints)))
    await assertUnusable(many, /proof\.json: checkpoints: expected at most 5 \(the spec's checkpoint schedule\), got 10/)
    const big = await variant('big', async (dir) => {
      const file = path.join(dir, 'checkpoints/step-00000050.ckpt')
      await writeFile(file, Buffer.concat([await readFile(file), Buffer.alloc(4)]))
    })
    await assertUnusable(big, new RegExp(`checkpoints\\[1\\]\\.file: checkpoints/step-00000050\\.ckpt is ${checkpointBytes(spec) + 4} bytes, expected at most ${checkpointBytes(spec)}`))
  })

  it('binds to a job: rejects a bundle whose spec hash is not the job\'s, before any replay', async () => {
    const bundle = await readBundle(good)
    const own = await verifyBundle({dir: good, seed: '1', segments: 1, specHash: specHash(bundle.spec)})
    assert.equal(own.report.accepted, true, own.report.reason)
    assert.equal(own.jobSpecHash, specHash(bundle.spec))
    const other = `0x${'ab'.repeat(32)}` as const
    const {report} = await verifyBundle({dir: good, seed: '1', specHash: other})
    assert.equal(report.accepted, false)
    assert.equal(report.checks.specHash, 'fail')
    assert.deepEqual(report.segments, [])
    assert.match(report.reason ?? '', /manifest specHash: expected 0x(ab){32} \(the job's\), got 0x[0-9a-f]{64}: the proof is for another job/)
  })

  it('unusable: a spec that is not a job spec', async () => {
    const dir = await variant('bad-spec', (dir) => writeFile(path.join(dir, 'spec.json'), JSON.stringify({name: 'x'})))
    await assertUnusable(dir, /spec\.json: model/)
  })
})
