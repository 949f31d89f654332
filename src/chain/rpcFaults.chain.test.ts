import assert from 'node:assert/strict'

import {type Hex, toHex} from 'viem'

import {startFaultyRpc} from '../../test/helpers/faultyRpc.js'
import {chainTime} from '../actors/chainTime.js'
import {type Anvil, createAnvil} from './anvil.js'
import {createClients, defaultPollingInterval} from './clients.js'
import {createStallWatch} from './createStallWatch.js'
import {RpcGaveUpError} from './errors.js'
import {getLogsPaged, isRangeTooLarge} from './getLogsPaged.js'
import {waitForReceipt} from './waitForReceipt.js'

/** anvil's first dev account, the address of KEY_0. */
const ACCOUNT_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
/** Init code that deploys `PUSH1 0 PUSH1 0 LOG0 STOP`: every call to it emits one empty log. */
const LOGGER_BYTECODE: Hex = '0x6006600c60003960066000f360006000a000'

describe('RPC faults: paged log reads, retries with backoff, a stalled chain (real anvil behind a real faulty proxy)', function () {
  this.timeout(60_000)
  let anvil: Anvil
  before(async () => {
    anvil = createAnvil({accounts: 1})
    await anvil.start()
  })
  after(() => anvil.stop())

  it('getLogsPaged reads a wide range through an RPC that refuses more than 50 blocks a query, shrinking its chunk', async () => {
    const {publicClient, walletClient} = await createClients({rpcUrl: anvil.rpcUrl, privateKey: KEY_0})
    const deployed = await waitForReceipt(publicClient, {hash: await walletClient.deployContract({abi: [], bytecode: LOGGER_BYTECODE})})
    const logger = deployed.contractAddress!
    const fromBlock = deployed.blockNumber
    // Five logs spread over ~300 blocks.
    for (let i = 0; i < 5; i++) {
      await waitForReceipt(publicClient, {hash: await walletClient.sendTransaction({to: logger})})
      await publicClient.request({method: 'anvil_mine', params: [toHex(60)]} as never)
    }
    const limit = 50n
    const proxy = await startFaultyRpc(anvil.rpcUrl, (request) => {
      if (request.method !== 'eth_getLogs') return {kind: 'forward'}
      const [filter] = request.params as [{fromBlock: Hex; toBlock?: Hex | 'latest'}]
      // An open range ("to the latest block") is as wide as the chain.
      const open = filter.toBlock === undefined || filter.toBlock === 'latest'
      return open || BigInt(filter.toBlock!) - BigInt(filter.fromBlock) + 1n > limit ? {kind: 'rpc-error', code: -32005, message: `block range is too wide (max ${limit})`} : {kind: 'forward'}
    })
    try {
      const {publicClient: limited} = await createClients({rpcUrl: proxy.url, chainId: anvil.chainId})
      await assert.rejects(limited.getLogs({address: logger, fromBlock}), (error: unknown) => isRangeTooLarge(error))
      const paged = await getLogsPaged(limited, {fromBlock, chunkBlocks: 200n}, (range) => limited.getLogs({address: logger, ...range}))
      const direct = await publicClient.getLogs({address: logger, fromBlock})
      assert.equal(direct.length, 5)
      assert.deepEqual(
        paged.map((log) => [log.blockNumber, log.transactionHash]),
        direct.map((log) => [log.blockNumber, log.transactionHash]),
      )
      const queries = proxy.seen.filter((request) => request.method === 'eth_getLogs')
      const refused = queries.filter((query) => query.fault === 'rpc-error').length
      // The first unpaged read, then one refusal per halving (200 -> 100 -> 50), each refusal asked once (not retried).
      assert.equal(refused, 3, JSON.stringify(queries))
      for (const query of queries.filter((q) => q.fault === 'forward')) {
        const [filter] = query.params as [{fromBlock: Hex; toBlock: Hex}]
        assert.ok(BigInt(filter.toBlock) - BigInt(filter.fromBlock) + 1n <= limit)
      }
    } finally {
      await proxy.close()
    }
  })

  it('retries transient failures (503, 429, -32005 rate limit) with backoff and then answers', async () => {
    const faults = [{kind: 'status', status: 503}, {kind: 'status', status: 429}, {kind: 'rpc-error', code: -32005, message: 'rate limit: 10 requests per second'}] as const
    const proxy = await startFaultyRpc(anvil.rpcUrl, (request, count) => (request.method === 'eth_blockNumber' && count < faults.length ? faults[count]! : {kind: 'forward'}))
    try {
      const {publicClient} = await createClients({rpcUrl: proxy.url, chainId: anvil.chainId})
      const head = await publicClient.getBlockNumber({cacheTime: 0})
      assert.equal(head, await (await createClients({rpcUrl: anvil.rpcUrl})).publicClient.getBlockNumber({cacheTime: 0}))
      assert.deepEqual(
        proxy.seen.map((request) => request.fault),
        ['status', 'status', 'rpc-error', 'forward'],
      )
    } finally {
      await proxy.close()
    }
  })

  it('gives up after its retries with one line naming the RPC URL and the method', async () => {
    const proxy = await startFaultyRpc(anvil.rpcUrl, () => ({kind: 'status', status: 503}))
    try {
      const {publicClient} = await createClients({rpcUrl: proxy.url, chainId: anvil.chainId, retries: 2})
      await assert.rejects(publicClient.getBlockNumber({cacheTime: 0}), (error: unknown) => {
        assert.ok(error instanceof RpcGaveUpError, String(error))
        assert.match(error.shortMessage, new RegExp(`^RPC ${proxy.url}: eth_blockNumber failed 3 times over \\d+\\.\\d s, giving up: HTTP request failed\\.$`))
        return true
      })
      assert.equal(proxy.seen.length, 3)
    } finally {
      await proxy.close()
    }
  })

  it('a transaction whose answer was lost is not sent twice: the retry told "nonce too low" finds it mined and returns its hash', async () => {
    // What a Hardhat node under load did in CI: it mined the settle, answered after the client gave up, and the
    // retry of the same signed transaction was refused with "nonce too low".
    const proxy = await startFaultyRpc(anvil.rpcUrl, (request) =>
      request.method === 'eth_sendRawTransaction' && proxy.seen.every((seen) => seen.method !== 'eth_sendRawTransaction') ? {kind: 'lost-answer', status: 504} : {kind: 'forward'},
    )
    try {
      const {publicClient, walletClient, account} = await createClients({rpcUrl: proxy.url, chainId: anvil.chainId, privateKey: KEY_0})
      const nonce = await publicClient.getTransactionCount({address: account.address, blockTag: 'pending'})
      const hash = await walletClient.sendTransaction({to: '0x000000000000000000000000000000000000dEaD', value: 1n})
      const receipt = await waitForReceipt(publicClient, {hash})
      assert.equal(receipt.status, 'success')
      assert.equal((await publicClient.getTransaction({hash})).nonce, nonce)
      assert.equal(await publicClient.getTransactionCount({address: account.address, blockTag: 'pending'}), nonce + 1, 'sent once')
      const sends = proxy.seen.filter((request) => request.method === 'eth_sendRawTransaction')
      assert.deepEqual(sends.map((request) => request.fault), ['lost-answer', 'forward'])
      assert.ok(proxy.seen.some((request) => request.method === 'eth_getTransactionByHash'))
    } finally {
      await proxy.close()
    }
  })

  it('does not retry an answer: a revert or a bad request is asked once', async () => {
    const proxy = await startFaultyRpc(anvil.rpcUrl, (request) => (request.method === 'eth_call' ? {kind: 'rpc-error', code: 3, message: 'execution reverted'} : {kind: 'forward'}))
    try {
      const {publicClient} = await createClients({rpcUrl: proxy.url, chainId: anvil.chainId})
      await assert.rejects(publicClient.call({to: '0x0000000000000000000000000000000000000001', data: '0x'}))
      assert.equal(proxy.seen.filter((request) => request.method === 'eth_call').length, 1)
    } finally {
      await proxy.close()
    }
  })

  it('sends the reads one step starts together as one HTTP request (a JSON-RPC batch), and one that fails alone fails alone', async () => {
    const proxy = await startFaultyRpc(anvil.rpcUrl, (request) => (request.method === 'eth_getCode' ? {kind: 'rpc-error', code: -32602, message: 'bad address'} : {kind: 'forward'}))
    try {
      const {publicClient} = await createClients({rpcUrl: proxy.url, chainId: anvil.chainId})
      const [block, balance, nonce, code] = await Promise.allSettled([
        publicClient.getBlockNumber(),
        publicClient.getBalance({address: ACCOUNT_0}),
        publicClient.getTransactionCount({address: ACCOUNT_0}),
        publicClient.getCode({address: ACCOUNT_0}),
      ])
      assert.deepEqual(proxy.posts, [4], 'four reads in one HTTP request')
      assert.equal(block.status, 'fulfilled')
      assert.equal(balance.status === 'fulfilled' && balance.value > 0n, true)
      assert.equal(nonce.status, 'fulfilled')
      assert.equal(code.status, 'rejected')
      assert.match(String((code as PromiseRejectedResult).reason), /bad address/)

      // For a provider that refuses batches: GENSYN_RPC_BATCH=0 sends each read on its own.
      process.env.GENSYN_RPC_BATCH = '0'
      const {publicClient: single} = await createClients({rpcUrl: proxy.url, chainId: anvil.chainId}).finally(() => delete process.env.GENSYN_RPC_BATCH)
      proxy.posts.length = 0
      await Promise.all([single.getBlockNumber(), single.getBalance({address: ACCOUNT_0}), single.getTransactionCount({address: ACCOUNT_0})])
      assert.deepEqual(proxy.posts, [1, 1, 1])
    } finally {
      await proxy.close()
    }
  })

  it('polls a loopback chain every 100 ms and a remote one at its block time, measured from its last blocks (1 s .. 12 s)', async () => {
    const {publicClient} = await createClients({rpcUrl: anvil.rpcUrl})
    assert.equal(await defaultPollingInterval(publicClient, anvil.rpcUrl), 100)
    const mineSpaced = async (seconds: number) => {
      for (let i = 0; i < 6; i++) {
        const {timestamp} = await publicClient.getBlock({blockTag: 'latest'})
        await publicClient.request({method: 'evm_mine', params: [toHex(timestamp + BigInt(seconds))]} as never)
      }
    }
    await mineSpaced(3)
    assert.equal(await defaultPollingInterval(publicClient, 'https://rpc.example.org'), 3000)
    await mineSpaced(30)
    assert.equal(await defaultPollingInterval(publicClient, 'https://rpc.example.org'), 12_000)
  })

  it('says so once when no block comes while an actor waits, and again when blocks resume', async () => {
    const {publicClient} = await createClients({rpcUrl: anvil.rpcUrl})
    const lines: string[] = []
    const stallWatch = createStallWatch({rpcUrl: anvil.rpcUrl, stallMs: 300, report: (line) => lines.push(line)})
    // anvil automines: with no transaction, no block comes.
    const until = Date.now() + 10_000
    while (lines.length === 0 && Date.now() < until) {
      await chainTime({publicClient, stallWatch})
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const head = await publicClient.getBlockNumber({cacheTime: 0})
    assert.deepEqual(lines, [`no new block for 0.3 s at ${anvil.rpcUrl} (block ${head}): is the node mining? (Hardhat: --interval / anvil: --block-time)`])
    for (let i = 0; i < 5; i++) await chainTime({publicClient, stallWatch})
    assert.equal(lines.length, 1, 'one line per stall')
    await publicClient.request({method: 'evm_mine'} as never)
    await chainTime({publicClient, stallWatch})
    assert.equal(lines.length, 2)
    assert.match(lines[1]!, new RegExp(`^blocks again at ${anvil.rpcUrl}: block ${head + 1n} after \\d+ s without one$`))
  })
})
