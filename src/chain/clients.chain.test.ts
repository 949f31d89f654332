import assert from 'node:assert/strict'

import {parseEther} from 'viem'

import {type Anvil, createAnvil} from './anvil.js'
import {chainFor, createClients} from './clients.js'
import {ChainUnreachableError} from './errors.js'
import {mine} from '../../test/helpers/mining.js'
import {waitForReceipt} from './waitForReceipt.js'

// anvil's first two dev accounts (mnemonic `test test ... junk`).
const KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const ADDRESS_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const ADDRESS_1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

describe('createClients', () => {
  let anvil: Anvil
  before(async () => {
    anvil = createAnvil({chainId: 1337})
    await anvil.start()
  })
  after(() => anvil.stop())

  it('reads the chain id from the endpoint and returns only a public client without a key', async () => {
    const clients = await createClients({rpcUrl: anvil.rpcUrl})
    assert.equal(clients.chain.id, 1337)
    assert.equal(clients.chain.name, 'Chain 1337')
    assert.deepEqual(clients.chain.rpcUrls.default.http, [anvil.rpcUrl])
    assert.equal(await clients.publicClient.getChainId(), 1337)
    assert.equal(clients.walletClient, undefined)
    assert.equal(clients.account, undefined)
    assert.equal(clients.publicClient.pollingInterval, 100)
  })

  it('with a private key returns a wallet client that signs and sends on that chain', async () => {
    const {publicClient, walletClient, account} = await createClients({rpcUrl: anvil.rpcUrl, privateKey: KEY_0})
    assert.equal(account.address, ADDRESS_0)
    const before = await publicClient.getBalance({address: ADDRESS_1})
    const hash = await walletClient.sendTransaction({to: ADDRESS_1, value: parseEther('1')})
    const receipt = await waitForReceipt(publicClient, {hash})
    assert.equal(receipt.status, 'success')
    assert.equal(receipt.from.toLowerCase(), ADDRESS_0.toLowerCase())
    assert.equal(await publicClient.getBalance({address: ADDRESS_1}), before + parseEther('1'))
  })

  it('reads the head fresh every time: a block mined a moment ago is seen at once, even with a long polling interval', async () => {
    const {publicClient} = await createClients({rpcUrl: anvil.rpcUrl, pollingInterval: 60_000})
    const before = await publicClient.getBlockNumber()
    await mine({publicClient})
    assert.equal(await publicClient.getBlockNumber(), before + 1n)
  })

  it('a given chainId skips the round trip (no endpoint needed)', async () => {
    const clients = await createClients({rpcUrl: 'http://127.0.0.1:9', chainId: 31337, pollingInterval: 50})
    assert.equal(clients.chain.id, 31337)
    assert.equal(clients.chain.name, 'Anvil')
    assert.equal(clients.publicClient.pollingInterval, 50)
  })

  it('throws ChainUnreachableError naming the URL when nothing answers', async () => {
    await assert.rejects(createClients({rpcUrl: 'http://127.0.0.1:9'}), (error: unknown) => {
      assert.ok(error instanceof ChainUnreachableError)
      assert.match(error.shortMessage, /^cannot reach the chain at http:\/\/127\.0\.0\.1:9: /)
      assert.equal(error.shortMessage.includes('\n'), false)
      return true
    })
  })

  it('chainFor keeps anvil settings with the given id and URL', () => {
    const chain = chainFor(5, 'http://example.invalid:8545')
    assert.equal(chain.id, 5)
    assert.equal(chain.nativeCurrency.symbol, 'ETH')
    assert.deepEqual(chain.rpcUrls.default.http, ['http://example.invalid:8545'])
  })
})
