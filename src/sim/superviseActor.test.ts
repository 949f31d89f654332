import assert from 'node:assert/strict'

import {nodeActor} from '../../test/helpers/nodeActor.js'
import {type ActorCrash, type RestartPolicy, superviseActor} from './superviseActor.js'

const fast: RestartPolicy = {maxQuickCrashes: 2, healthySeconds: 30, baseDelayMs: 10, maxDelayMs: 40}
const sleeper = 'setInterval(() => {}, 1000)'

describe('superviseActor (real processes)', function () {
  this.timeout(30_000)

  it('restarts a crashing process with a doubling delay, then gives up on a crash loop', async () => {
    let starts = 0
    const crashes: ActorCrash[] = []
    const actor = superviseActor({
      start: () => (starts++, nodeActor('solver-1', 'solver', 'console.error("boom"); process.exit(3)')),
      policy: fast,
      onCrash: (crash) => crashes.push(crash),
    })
    const exit = await actor.exited
    assert.equal(exit.exitCode, 3)
    assert.equal(starts, 3, 'the first start and two restarts')
    assert.deepEqual(
      crashes.map((crash) => crash.restart?.delayMs),
      [10, 20, undefined],
    )
    assert.ok(crashes.every((crash) => crash.cause === 'crash' && crash.exit.stderrTail.includes('boom')))
    assert.equal(actor.exit?.exitCode, 3)
  })

  it('leaves an actor that exited 0 alone, and one its caller says not to restart', async () => {
    let starts = 0
    const done = superviseActor({start: () => (starts++, nodeActor('solver-1', 'solver', 'process.exit(0)')), policy: fast})
    assert.equal((await done.exited).exitCode, 0)
    assert.equal(starts, 1)
    const failed = superviseActor({
      start: () => (starts++, nodeActor('submitter-1', 'submitter', 'process.exit(1)')),
      policy: fast,
      shouldRestart: () => false,
    })
    assert.equal((await failed.exited).exitCode, 1)
    assert.equal(starts, 2)
    assert.equal(failed.crashes.length, 0)
  })

  it('a chaos kill is restarted however often it comes, and stop() ends supervision', async () => {
    const pids: (number | undefined)[] = []
    const actor = superviseActor({start: () => nodeActor('verifier-1', 'verifier', sleeper), policy: fast, onStart: (handle) => pids.push(handle.pid)})
    for (let kill = 1; kill <= fast.maxQuickCrashes + 2; kill++) {
      await waitUntil(() => pids.length === kill)
      assert.equal(actor.crash(), true)
    }
    await waitUntil(() => pids.length === fast.maxQuickCrashes + 3)
    assert.equal(new Set(pids).size, pids.length, 'each restart is a new process')
    assert.ok(actor.crashes.every((crash) => crash.cause === 'chaos' && crash.restart !== undefined))
    assert.equal(actor.exit, undefined, 'still supervised')
    const exit = await actor.stop()
    assert.equal(exit.signal, 'SIGTERM')
    assert.equal(actor.crash(), false, 'nothing left to kill')
    assert.equal(pids.length, fast.maxQuickCrashes + 3, 'no restart after stop()')
  })

  it('kill() is final: a dropout is not restarted', async () => {
    let starts = 0
    const actor = superviseActor({start: () => (starts++, nodeActor('dropout-1', 'solver', sleeper)), policy: fast})
    await new Promise((resolve) => setTimeout(resolve, 100))
    const exit = await actor.kill()
    assert.equal(exit.signal, 'SIGKILL')
    assert.equal(actor.killed, true)
    await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(starts, 1)
  })
})

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 500) throw new Error('condition never held')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
