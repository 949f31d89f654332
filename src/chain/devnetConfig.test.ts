import assert from 'node:assert/strict'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type DevnetConfig, devnetConfigPath, readDevnetConfig, writeDevnetConfig} from './devnetConfig.js'
import {DevnetConfigError} from './errors.js'

const valid = {
  rpcUrl: 'http://127.0.0.1:8545',
  chainId: 31337,
  contracts: {
    registry: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    config: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    market: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
    thresholds: '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9',
    game: '0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9',
    book: '0x5FC8d32690cc91D4c39d9d3abcBD16989F875707',
  },
  deployBlock: 1n,
  accounts: [
    {
      index: 0,
      address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
      role: 'treasury',
    },
    {
      index: 1,
      address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
    },
  ],
  storeDir: '/tmp/gensyn-store',
  createdAt: '2025-01-02T03:04:05.678Z',
} as const satisfies DevnetConfig

describe('devnetConfig', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'gensyn-devnet-config-'))
  })
  afterEach(() => rmSync(dir, {recursive: true, force: true}))

  const stateDir = () => path.join(dir, '.gensyn')
  const writeRaw = (value: unknown) => {
    mkdirSync(stateDir(), {recursive: true})
    writeFileSync(devnetConfigPath(stateDir()), typeof value === 'string' ? value : JSON.stringify(value))
  }
  const expectInvalid = async (value: unknown, pattern: RegExp) => {
    writeRaw(value)
    await assert.rejects(readDevnetConfig(stateDir()), (error: unknown) => {
      assert.ok(error instanceof DevnetConfigError, String(error))
      assert.match(error.shortMessage, pattern)
      assert.equal(error.exitCode, 2)
      return true
    })
  }

  it('writes <dir>/devnet.json (owner-only, deployBlock as a string) and reads it back', async () => {
    const file = await writeDevnetConfig(stateDir(), valid)
    assert.equal(file, path.join(stateDir(), 'devnet.json'))
    assert.equal(statSync(file).mode & 0o777, 0o600)
    const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    assert.equal(json.deployBlock, '1')
    assert.deepEqual(await readDevnetConfig(stateDir()), valid)
  })

  it('deployBlock is optional', async () => {
    const {deployBlock: _, ...withoutBlock} = valid
    await writeDevnetConfig(stateDir(), withoutBlock)
    const read = await readDevnetConfig(stateDir())
    assert.equal(read.deployBlock, undefined)
    assert.equal('deployBlock' in JSON.parse(readFileSync(devnetConfigPath(stateDir()), 'utf8')), false)
  })

  it('contracts.thresholds, config, game and book are optional, so a file written before they existed still reads', async () => {
    const {thresholds: _t, config: _c, game: _g, book: _b, ...older} = valid.contracts
    writeRaw({...valid, deployBlock: '1', contracts: older})
    const read = await readDevnetConfig(stateDir())
    assert.deepEqual(read.contracts, older)
    for (const key of ['thresholds', 'config', 'game', 'book']) assert.equal(key in read.contracts, false)
  })

  for (const key of ['thresholds', 'config', 'game', 'book'] as const) {
    it(`rejects a bad ${key} address, naming the field`, async () => {
      await expectInvalid({...valid, deployBlock: '1', contracts: {...valid.contracts, [key]: 'nope'}}, new RegExp(`contracts\\.${key}: expected an address`))
    })
  }

  it('a missing file says how to get one, with the path relative to the working directory', async () => {
    const cwd = process.cwd()
    process.chdir(dir)
    try {
      await assert.rejects(readDevnetConfig('.gensyn'), (error: unknown) => {
        assert.ok(error instanceof DevnetConfigError)
        assert.equal(error.shortMessage, 'no devnet found at .gensyn/devnet.json: run `gensyn devnet up` or pass --rpc-url')
        assert.equal(error.exitCode, 2)
        return true
      })
    } finally {
      process.chdir(cwd)
    }
  })

  it('rejects a file that is not JSON', async () => {
    await expectInvalid('{"rpcUrl": ', /devnet\.json: expected JSON/)
  })

  it('rejects a bad contract address, naming the field', async () => {
    await expectInvalid({...valid, deployBlock: '1', contracts: {...valid.contracts, market: '0x1234'}}, /contracts\.market: expected an address/)
  })

  it('rejects an account whose address does not belong to its key', async () => {
    const accounts = [{...valid.accounts[0], address: valid.accounts[1].address}]
    await expectInvalid({...valid, deployBlock: '1', accounts}, /accounts\.0\.address: address does not belong to privateKey/)
  })

  it('rejects a malformed private key', async () => {
    const accounts = [{...valid.accounts[0], privateKey: '0xabc'}]
    await expectInvalid({...valid, deployBlock: '1', accounts}, /accounts\.0\.privateKey: expected a private key/)
  })

  it('rejects duplicate account indexes', async () => {
    const accounts = [valid.accounts[0], {...valid.accounts[1], index: 0}]
    await expectInvalid({...valid, deployBlock: '1', accounts}, /accounts: account indexes must be unique/)
  })

  it('rejects a non-HTTP RPC URL, a zero chain id and a bad timestamp', async () => {
    await expectInvalid({...valid, deployBlock: '1', rpcUrl: 'ftp://127.0.0.1'}, /rpcUrl/)
    await expectInvalid({...valid, deployBlock: '1', chainId: 0}, /chainId/)
    await expectInvalid({...valid, deployBlock: '1', createdAt: 'yesterday'}, /createdAt/)
  })

  it('refuses to write an invalid config and leaves no file behind', async () => {
    await assert.rejects(writeDevnetConfig(stateDir(), {...valid, chainId: -1}), DevnetConfigError)
    assert.equal(existsSync(devnetConfigPath(stateDir())), false)
  })
})
