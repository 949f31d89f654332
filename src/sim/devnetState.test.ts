import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {InvalidInputError} from '../errors/base.js'
import {devnetStatePaths, type PersistedDevnet, readDevnetState, writeDevnetState} from './devnetState.js'
import {resolveDefaultScenario} from './scenario.js'

describe('devnetState (--state FILE and FILE.d/devnet-state.json)', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gensyn-devnet-state-'))
  })
  afterEach(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  const record = (): PersistedDevnet => ({
    version: 1,
    scenario: resolveDefaultScenario(),
    backend: 'wasm',
    chainId: 31_337,
    deployBlock: 1n,
    contracts: {registry: '0x5FbDB2315678afecb367f032d93F642f64180aa3', market: '0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9'},
    accounts: [{index: 0, address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', role: 'treasury'}],
    before: {blockNumber: 7n, accounts: [{address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', wallet: 10n ** 21n + 1n, credit: 2n, stake: 0n}], registryBalance: 0n, marketBalance: 5n, totalStaked: 0n, totalBurned: 0n, totalEscrow: 3n, jackpot: 0n, totalCredit: 2n},
    finished: [],
    dropouts: [],
    marketSamples: [{block: 9n, timestamp: 1_700_000_000n, price: 10n ** 13n, demand: 1n, capacity: 2n}],
    elapsedSeconds: 12.5,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  })

  it('a path with neither the dump nor the record is a fresh start', async () => {
    assert.equal(await readDevnetState(path.join(dir, 'new.state')), undefined)
  })

  it('round-trips the record with every bigint exact, readable by its owner only', async () => {
    const file = path.join(dir, 'run.state')
    await writeFile(file, '{"block": {}}')
    const written = record()
    await writeDevnetState(file, written)
    const read = await readDevnetState(file)
    assert.deepEqual({...read, updatedAt: written.updatedAt}, written)
    assert.equal((await stat(devnetStatePaths(file).record)).mode & 0o777, 0o600)
    assert.equal(typeof read?.before.accounts[0]?.wallet, 'bigint')
  })

  it('names what is wrong, in one line, with a dump without record, a record without dump, or a cut-off dump', async () => {
    const file = path.join(dir, 'run.state')
    await writeFile(file, '{}')
    await assert.rejects(readDevnetState(file), (error: Error) => error instanceof InvalidInputError && /has no run\.state\.d\/devnet-state\.json beside it/.test(error.message))
    await writeDevnetState(file, record())
    await writeFile(file, '{"block": {"number": "0x')
    await assert.rejects(readDevnetState(file), /found a damaged file/)
    await rm(file)
    await assert.rejects(readDevnetState(file), /is missing \(the chain was never dumped\)/)
    assert.ok(JSON.parse(await readFile(devnetStatePaths(file).record, 'utf8')))
  })
})
