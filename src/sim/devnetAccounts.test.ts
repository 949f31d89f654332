import assert from 'node:assert/strict'

import {privateKeyToAddress} from 'viem/accounts'

import {actorRoster} from './actorRoster.js'
import {devnetAccounts, scenarioAccounts} from './devnetAccounts.js'
import {loadScenario, withSeed} from './scenario.js'

describe('seeded devnet accounts and actor seeds', () => {
  it('derives every key from the seed and the account name: the same seed the same keys, another seed other keys', () => {
    const counts = {submitters: 1, solvers: 2, verifiers: 2, whistleblowers: 1}
    const seeded = devnetAccounts(counts, 7)
    assert.deepEqual(devnetAccounts(counts, 7), seeded)
    assert.deepEqual(seeded.map((account) => account.role), ['treasury', 'submitter', 'solver', 'solver', 'verifier', 'verifier', 'whistleblower'])
    for (const account of seeded) assert.equal(account.address, privateKeyToAddress(account.privateKey))
    const other = new Set(devnetAccounts(counts, 8).map((account) => account.address))
    assert.ok(seeded.every((account) => !other.has(account.address)))
    // An added whistleblower leaves the others' keys alone: each key hangs on its own name.
    assert.deepEqual(devnetAccounts({...counts, whistleblowers: 2}, 7).slice(0, seeded.length), seeded)
    // Unseeded, they are anvil's mnemonic accounts, as before.
    assert.equal(devnetAccounts(counts)[0]!.address, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
  })

  it('hands each solver and whistleblower a seed of its own (none to verifiers, which draw nothing), and a run without a seed picks one', async () => {
    const scenario = withSeed(await loadScenario('colluding'), 11)
    assert.equal(scenario.seed, 11)
    const roster = actorRoster(scenario, scenarioAccounts(scenario.actors, scenario.seed))
    const seedOf = (args: string[]) => args[args.indexOf('--seed') + 1]
    const seeds = roster.filter((entry) => entry.role !== 'verifier').map((entry) => seedOf(entry.args))
    assert.ok(seeds.length >= 2)
    for (const seed of seeds) assert.match(seed!, /^0x[\da-f]{64}$/)
    assert.equal(new Set(seeds).size, seeds.length)
    assert.ok(roster.filter((entry) => entry.role === 'verifier').every((entry) => !entry.args.includes('--seed')))
    assert.deepEqual(actorRoster(scenario, scenarioAccounts(scenario.actors, 11)), roster)
    const picked = withSeed(await loadScenario('smoke'), undefined)
    assert.equal(typeof picked.seed, 'number')
    assert.equal(withSeed(picked, undefined).seed, picked.seed)
  })
})
