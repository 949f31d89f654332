import assert from 'node:assert/strict'

import {nodeActor} from '../../test/helpers/nodeActor.js'
import {type ChaosKill, type ChaosSettings, startChaosMonkey} from './chaosMonkey.js'
import type {ActorRole} from './spawnActor.js'
import {type RestartPolicy, type SupervisedActor, superviseActor} from './superviseActor.js'

const sleeper = 'setInterval(() => {}, 1000)'
const policy: RestartPolicy = {maxQuickCrashes: 1, healthySeconds: 30, baseDelayMs: 10, maxDelayMs: 10}
const settings = (kills: number, seed = 1): ChaosSettings => ({kills, seed, roles: ['submitter', 'solver', 'verifier', 'whistleblower'], minGapSeconds: 0, maxGapSeconds: 0.05, patienceSeconds: 20})

describe('startChaosMonkey (real processes under the supervisor)', function () {
  this.timeout(30_000)
  let actors: SupervisedActor[] = []
  const spawn = (name: string, role: ActorRole) => {
    const actor = superviseActor({start: () => nodeActor(name, role, sleeper), policy})
    actors.push(actor)
    return actor
  }
  afterEach(async () => {
    await Promise.all(actors.map((actor) => actor.stop()))
    actors = []
  })

  it('kills busy actors, spreading its kills over the roles, and stops at its count', async () => {
    const solver = spawn('solver-1', 'solver')
    const verifier = spawn('verifier-1', 'verifier')
    const whistleblower = spawn('whistleblower-1', 'whistleblower')
    const kills: ChaosKill[] = []
    const monkey = startChaosMonkey(settings(3), () => actors.filter((actor) => actor.exit === undefined), (kill) => kills.push(kill))
    // The solver talks all the time; the others only now and then. Kills must still reach all three roles.
    for (let tick = 0; kills.length < 3 && tick < 400; tick++) {
      monkey.observe(solver, {type: 'progress', taskId: '1'})
      if (tick % 10 === 9) monkey.observe(verifier, {type: 'segment', taskId: '1'})
      if (tick % 25 === 24) monkey.observe(whistleblower, {type: 'checking', taskId: '1'})
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    assert.deepEqual(kills.map((kill) => kill.role).sort(), ['solver', 'verifier', 'whistleblower'])
    assert.equal(kills[0]!.during, 'progress')
    for (let tick = 0; tick < 40; tick++) {
      monkey.observe(solver, {type: 'progress', taskId: '1'})
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    assert.equal(kills.length, 3, 'no kill past its count')
    assert.deepEqual(
      actors.map((actor) => actor.crashes.map((crash) => crash.cause)),
      [['chaos'], ['chaos'], ['chaos']],
    )
    assert.ok(actors.every((actor) => actor.exit === undefined), 'every victim was restarted')
    monkey.stop()
  })

  it('waits its patience for a least-hit role before striking a role it has hit already', async () => {
    const strikes = async (patienceSeconds: number) => {
      const solver = spawn('solver-1', 'solver')
      const whistleblower = spawn('whistleblower-1', 'whistleblower')
      const kills: ChaosKill[] = []
      const monkey = startChaosMonkey({...settings(2), roles: ['solver', 'whistleblower'], minGapSeconds: 0, maxGapSeconds: 0, patienceSeconds}, () => actors, (kill) => kills.push(kill))
      // The solver works all the time; the whistleblower only after 1.5 s (a task verified late on a slow machine).
      const started = performance.now()
      await waitUntil(
        () => kills.length === 2,
        10_000,
        () => {
          monkey.observe(solver, {type: 'progress', taskId: '1'})
          if (performance.now() - started > 1500) monkey.observe(whistleblower, {type: 'checking', taskId: '1'})
        },
      )
      monkey.stop()
      await Promise.all(actors.map((actor) => actor.stop()))
      actors = []
      return kills.map((kill) => kill.role)
    }
    assert.deepEqual(await strikes(0.3), ['solver', 'solver'], 'past its patience, the busy solver dies again')
    assert.deepEqual(await strikes(30), ['solver', 'whistleblower'], 'within its patience, it waits for the whistleblower')
  })

  it('kills a submitter that has waited a while, though it says nothing', async () => {
    const submitter = spawn('submitter-1', 'submitter')
    const solver = spawn('solver-1', 'solver')
    const kills: ChaosKill[] = []
    const monkey = startChaosMonkey({...settings(1), roles: ['submitter'], minGapSeconds: 0, maxGapSeconds: 0}, () => actors, (kill) => kills.push(kill))
    monkey.started(submitter)
    const started = performance.now()
    await waitUntil(() => kills.length === 1, 12_000, () => monkey.observe(solver, {type: 'progress', taskId: '1'}))
    assert.equal(kills[0]!.actor, 'submitter-1')
    assert.ok(performance.now() - started >= 4_900, 'a submitter is busy only after 5 s')
    monkey.stop()
  })
})

async function waitUntil(condition: () => boolean, timeoutMs: number, tick: () => void): Promise<void> {
  const end = performance.now() + timeoutMs
  while (!condition()) {
    if (performance.now() > end) throw new Error('condition never held')
    tick()
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
