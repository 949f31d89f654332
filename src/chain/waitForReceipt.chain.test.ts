import assert from 'node:assert/strict'

import {createPublicClient, createTestClient, custom, type EIP1193RequestFn, type Hash, http, parseEther, WaitForTransactionReceiptTimeoutError} from 'viem'

import {type Anvil, createAnvil} from './anvil.js'
import {createClients, type SignerClients} from './clients.js'
import {ReceiptTimeoutError} from './errors.js'
import {waitForReceipt} from './waitForReceipt.js'

// anvil's first dev account and a second address (mnemonic `test test ... junk`).
const KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const ADDRESS_1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

/**
 * A public client on `rpcUrl` whose transport runs `before(method)` ahead of forwarding each request: the tests
 * use it to mine a block at an exact point of a wait, which is how the suite's hang was reproduced on demand.
 */
function interceptingClient(rpcUrl: string, before: (method: string) => Promise<void>) {
  const inner = http(rpcUrl)({retryCount: 0})
  const request = (async ({method, params}: {method: string; params?: unknown}) => {
    await before(method)
    return inner.request({method, params} as never)
  }) as EIP1193RequestFn
  return createPublicClient({transport: custom({request}), pollingInterval: 10})
}

describe('waitForReceipt (on anvil, mining only on demand)', function () {
  this.timeout(30_000)
  let anvil: Anvil
  let signer: SignerClients
  let test: ReturnType<typeof createTestClient>

  before(async () => {
    anvil = createAnvil()
    await anvil.start()
    signer = await createClients({rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, privateKey: KEY_0, pollingInterval: 10})
    test = createTestClient({mode: 'anvil', transport: http(anvil.rpcUrl)})
  })
  after(() => anvil.stop())
  // Every test starts with automine off: a sent transaction stays pending until the test mines it.
  beforeEach(() => test.setAutomine(false))
  afterEach(async () => {
    await test.mine({blocks: 1})
    await test.setAutomine(true)
  })

  async function sendPending(): Promise<Hash> {
    const hash = await signer.walletClient.sendTransaction({to: ADDRESS_1, value: parseEther('1'), gas: 21_000n})
    assert.equal((await signer.publicClient.getTransaction({hash})).blockNumber, null, 'the transfer is pending')
    return hash
  }

  it('returns the receipt when the only block that will ever come is mined during the wait', async () => {
    const hash = await sendPending()
    let mined = false
    const client = interceptingClient(anvil.rpcUrl, async (method) => {
      // After the first receipt miss has been answered, the transfer's block is mined; nothing else ever is.
      if (method === 'eth_getTransactionReceipt' && !mined) setTimeout(() => void test.mine({blocks: 1}), 30)
      if (method === 'eth_getTransactionReceipt') mined = true
    })
    const receipt = await waitForReceipt(client, {hash, timeout: 5_000})
    assert.equal(receipt.status, 'success')
    assert.equal(receipt.transactionHash, hash)
  })

  it('the cause it replaces: viem\'s waitForTransactionReceipt never sees a block mined during its replacement check', async () => {
    // If this starts failing, viem no longer drops that block: waitForReceipt may then be replaced by viem's own
    // wait again (docs/design.md, "Test suite").
    const hash = await sendPending()
    let armed = true
    const client = interceptingClient(anvil.rpcUrl, async (method) => {
      // viem asks for the block it saw while the transfer was still pending (the replacement check). The
      // transfer is mined right then, and the answer is held long enough for viem's block poller to see the
      // new block while the check is still running: the poller drops it, and no later block comes.
      if (method === 'eth_getBlockByNumber' && armed) {
        armed = false
        await test.mine({blocks: 1})
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    })
    await assert.rejects(client.waitForTransactionReceipt({hash, pollingInterval: 10, timeout: 3_000}), WaitForTransactionReceiptTimeoutError)
    assert.equal(armed, false, 'the replacement check ran')
    assert.equal((await waitForReceipt(client, {hash, timeout: 1_000})).status, 'success', 'the receipt was there all along')
  })

  it('times out naming the transaction and that it is still pending', async () => {
    const hash = await sendPending()
    const error = await waitForReceipt(signer.publicClient, {hash, timeout: 300, label: 'a transfer'}).catch((caught: unknown) => caught)
    assert.ok(error instanceof ReceiptTimeoutError, String(error))
    assert.equal(error.hash, hash)
    assert.match(error.shortMessage, new RegExp(`^no receipt for a transfer ${hash} after 0\\.3 s: the transaction is pending in the node's pool \\(is the chain mining\\?\\); chain head \\d+$`))
  })

  it('times out saying the node does not know a transaction it never saw', async () => {
    const unknown = `0x${'ab'.repeat(32)}` as Hash
    const error = await waitForReceipt(signer.publicClient, {hash: unknown, timeout: 100}).catch((caught: unknown) => caught)
    assert.ok(error instanceof ReceiptTimeoutError, String(error))
    assert.match(error.shortMessage, /: the node does not know the transaction \(dropped, or reverted away\); chain head \d+$/)
  })
})

describe('receipt waits in this repository', () => {
  it('never use viem\'s waitForTransactionReceipt (it can hang on an automining chain: see waitForReceipt)', async () => {
    const {readdir, readFile} = await import('node:fs/promises')
    const offenders: string[] = []
    for (const folder of ['src', 'test', 'bench', 'scripts']) {
      for (const entry of await readdir(folder, {recursive: true})) {
        if (!/\.(ts|tsx|mjs|js)$/.test(entry) || entry.includes('generated')) continue
        const file = `${folder}/${entry}`
        if (file === 'src/chain/waitForReceipt.chain.test.ts') continue
        if (/\.waitForTransactionReceipt\(|\bwaitForTransactionReceipt\(\w+,/.test(await readFile(file, 'utf8'))) offenders.push(file)
      }
    }
    assert.deepEqual(offenders, [], 'use waitForReceipt from src/chain/waitForReceipt.ts instead')
  })
})
