import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {execa, type ResultPromise} from 'execa'

import {gensynBin, repoRoot} from '../../test/helpers/cli.js'
import {isAlive} from './processLiveness.js'

/** A stand-in devnet: a real process that the test kills with SIGKILL, as a crash or the OOM killer would. */
function startParent(): ResultPromise {
  return execa('sleep', ['600'], {reject: false})
}

async function killParent(parent: ResultPromise): Promise<number> {
  parent.kill('SIGKILL')
  await parent
  assert.equal(isAlive(parent.pid), false)
  return parent.pid!
}

/** A child of `parentPid` that starts the watch, says it is ready, and would otherwise run for ten minutes. */
function startChild(parentPid: number, script: string): ResultPromise {
  const program = `import {watchParent, onParentGone} from './src/util/parentWatch.ts'\n${script}\nconsole.log('ready')\nsetTimeout(() => {}, 600_000)`
  return execa(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {cwd: repoRoot, reject: false, env: {GENSYN_PARENT_PID: String(parentPid)}})
}

async function readyLine(child: ResultPromise): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => (chunk.toString().includes('ready') ? resolve() : undefined))
    child.once('exit', () => reject(new Error('the child exited before it was ready')))
  })
}

describe('watchParent: an actor never outlives the devnet that spawned it (real processes)', function () {
  this.timeout(60_000)

  it('bin/run.js exits at once when its devnet is already gone, before it loads the command or asks the chain', async () => {
    const deadPid = await killParent(startParent())
    const stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-orphan-'))
    try {
      // Without the watch this command loads its modules, then fails to read the (missing) devnet: another error.
      const run = await execa(process.execPath, [gensynBin, 'verify', '--loop', '--account', '4', '--json', '--state-dir', stateDir], {reject: false, env: {GENSYN_PARENT_PID: String(deadPid)}})
      assert.equal(run.exitCode, 1)
      assert.equal(run.stderr, `the process that started this one (pid ${deadPid}) is gone: exiting`)
      assert.equal(run.stdout, '')
    } finally {
      await rm(stateDir, {recursive: true, force: true})
    }
  })

  it('with no role loop listening, the death of the parent ends the process with code 1', async () => {
    const parent = startParent()
    const child = startChild(parent.pid!, 'watchParent()')
    await readyLine(child)
    const parentPid = await killParent(parent)
    const exit = await child
    assert.equal(exit.exitCode, 1)
    assert.match(String(exit.stderr), new RegExp(`\\(pid ${parentPid}\\) is gone: exiting$`))
  })

  it('a role loop listening is told instead, and the process goes on until it finishes; released, the default comes back', async () => {
    const parent = startParent()
    // The handler stands in for withInterrupt's: it finishes its step (here, 300 ms) and exits by itself.
    const script = `watchParent()
onParentGone(() => { console.log('told'); setTimeout(() => process.exit(7), 300) })`
    const child = startChild(parent.pid!, script)
    await readyLine(child)
    await killParent(parent)
    const exit = await child
    assert.equal(exit.exitCode, 7)
    assert.equal(exit.stdout, 'ready\ntold')
    assert.equal(exit.stderr, '')

    const second = startParent()
    const released = startChild(second.pid!, `const release = onParentGone(() => console.log('told'))\nrelease()`)
    await readyLine(released)
    await killParent(second)
    const releasedExit = await released
    assert.equal(releasedExit.exitCode, 1)
    assert.equal(releasedExit.stdout, 'ready')
  })

  it('one watch per process even with two copies of the module loaded (bin/run.js its own, the CLI bundle its own)', async () => {
    const parent = startParent()
    // Another URL is another module instance, as a chunk of dist/cli is beside dist/util/parentWatch.js.
    const script = `const copy = await import('./src/util/parentWatch.ts?copy=bundle')
watchParent()
copy.onParentGone(() => { console.log('told'); setTimeout(() => process.exit(7), 300) })`
    const child = startChild(parent.pid!, script)
    await readyLine(child)
    await killParent(parent)
    const exit = await child
    assert.equal(exit.exitCode, 7, String(exit.stderr))
    assert.equal(exit.stdout, 'ready\ntold')
  })

  it('does nothing without GENSYN_PARENT_PID', async () => {
    const program = `import {watchParent, onParentGone} from './src/util/parentWatch.ts'\nwatchParent({})\nonParentGone(() => {})\nconsole.log('ran to the end')`
    const run = await execa(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {cwd: repoRoot, reject: false, env: {GENSYN_PARENT_PID: ''}})
    assert.equal(run.exitCode, 0, String(run.stderr))
    assert.equal(run.stdout, 'ran to the end')
  })
})
