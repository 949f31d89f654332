import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {type NetworkFile, readNetworkFile, writeNetworkFile} from './networkFile.js'

const network: NetworkFile = {
  rpcUrl: 'http://10.0.0.1:8545',
  chainId: 31_337,
  deployBlock: '39',
  contracts: {
    registry: `0x${'11'.repeat(20)}`,
    market: `0x${'22'.repeat(20)}`,
    config: `0x${'33'.repeat(20)}`,
    book: `0x${'44'.repeat(20)}`,
    disputes: `0x${'55'.repeat(20)}`,
    thresholds: `0x${'66'.repeat(20)}`,
    game: `0x${'77'.repeat(20)}`,
  },
  store: 'http://10.0.0.2:8600',
  deployer: `0x${'88'.repeat(20)}`,
  treasury: `0x${'88'.repeat(20)}`,
  createdAt: '2026-11-21T11:06:24.668Z',
}
const token = 'b7c1e0f2a9d84c3e5f6a7b8c9d0e1f2a'

describe('network file: the store token', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-network-'))
  })
  afterEach(() => rm(dir, {recursive: true, force: true}))

  it('writes a file with a token readable by its owner only, and reads the token back', async () => {
    const withToken = await writeNetworkFile(join(dir, 'secret.json'), {...network, storeToken: token})
    assert.equal((await stat(withToken)).mode & 0o777, 0o600)
    assert.equal((await readNetworkFile(withToken)).storeToken, token)
    const plain = await writeNetworkFile(join(dir, 'plain.json'), network)
    assert.notEqual((await stat(plain)).mode & 0o077, 0, 'without a secret the umask decides, as before')
    assert.doesNotMatch(await readFile(plain, 'utf8'), /storeToken/)
  })

  it('refuses a token without a store URL, or one that is short or has spaces, in one line naming the field', async () => {
    const cases: [unknown, string][] = [
      [{...network, store: undefined, storeToken: token}, 'storeToken: expected a store URL beside the token'],
      [{...network, storeToken: 'short'}, 'storeToken: expected a token of 16 to 512 printable ASCII characters without spaces'],
      [{...network, storeToken: 'a token with some spaces in it'}, 'storeToken: expected a token of 16 to 512 printable ASCII characters without spaces'],
    ]
    for (const [content, message] of cases) {
      const file = join(dir, 'bad.json')
      await writeFile(file, JSON.stringify(content))
      await assert.rejects(readNetworkFile(file), (error: Error & {shortMessage?: string}) => error.shortMessage === `--network ${file}: ${message}`)
    }
  })
})
