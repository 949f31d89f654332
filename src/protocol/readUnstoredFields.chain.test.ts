import assert from 'node:assert/strict'
import path from 'node:path'

import {encodeEventTopics, zeroHash} from 'viem'

import {startFaultyRpc} from '../../test/helpers/faultyRpc.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'
import {createClients} from '../chain/clients.js'
import {taskMarketAbi} from '../chain/generated/index.js'
import {loadJobSpec} from '../ml/spec/index.js'
import {packageRoot} from '../util/packageRoot.js'
import {connect, requireSigner, type SignedConnection} from './connect.js'
import {listTasks} from './listTasks.js'
import {finalityDepth} from './readUnstoredFields.js'
import {submitTask} from './submitTask.js'

const smokeMlp = path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml')
const taskSubmittedTopic = encodeEventTopics({abi: taskMarketAbi, eventName: 'TaskSubmitted'})[0]

/** An eth_getLogs request for TaskSubmitted events (readUnstoredFields' scan of spec hashes). */
function isSpecScan(params: unknown): boolean {
  const [filter] = params as [{topics?: unknown[]}]
  const first = filter.topics?.[0]
  return first === taskSubmittedTopic || (Array.isArray(first) && first.includes(taskSubmittedTopic))
}

/** The fields a task does not store, read back from the chain (docs/market.md, "What a task stores"). */
describe('readUnstoredFields: the fields a task does not store, from events and blocks (real anvil, deployed contracts)', function () {
  this.timeout(60_000)
  let devnet: LocalDevnet
  let submitter: SignedConnection

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 0, verifiers: 0})
    submitter = requireSigner(await connect({stateDir: devnet.stateDir, account: 1}))
  })
  after(() => devnet?.stop())

  it('reads every task\'s spec hash in one scan of TaskSubmitted, then only the blocks after it', async () => {
    const spec = await loadJobSpec(smokeMlp)
    const submitted = [
      await submitTask(submitter, {spec}),
      await submitTask(submitter, {spec: {...spec, training: {...spec.training, seed: spec.training.seed + 1}}}),
      await submitTask(submitter, {spec: {...spec, training: {...spec.training, seed: spec.training.seed + 2}}}),
    ]
    assert.equal(new Set(submitted.map((task) => task.specHash)).size, 3, 'three different specs')
    const proxy = await startFaultyRpc(devnet.anvil.rpcUrl, () => ({kind: 'forward'}))
    // The scans of TaskSubmitted (the task states' own scans, taskState.ts, are not this reader's).
    const logReads = () =>
      proxy.seen
        .filter((request) => request.method === 'eth_getLogs' && isSpecScan(request.params))
        .map((request) => {
          const [filter] = request.params as [{fromBlock: `0x${string}`; toBlock: `0x${string}`}]
          return {fromBlock: BigInt(filter.fromBlock), toBlock: BigInt(filter.toBlock)}
        })
    try {
      // A reader of its own (the hashes are remembered per client), through the recording proxy.
      const {publicClient} = await createClients({rpcUrl: proxy.url, chainId: devnet.anvil.chainId})
      const reader = {...submitter, publicClient}
      const tasks = await listTasks(reader)
      assert.deepEqual(tasks.map((task) => task.specHash), submitted.map((task) => task.specHash))
      assert.deepEqual(tasks.map((task) => [task.randomness, task.reportHash]), [[zeroHash, zeroHash], [zeroHash, zeroHash], [zeroHash, zeroHash]])
      assert.equal(logReads().length, 1, 'one scan for the three tasks')
      assert.equal(logReads()[0]!.fromBlock, submitter.deployBlock, 'from the deployment block')
      await listTasks(reader)
      // A development chain does not reorganise: nothing is read again.
      assert.equal(logReads().length, 1, 'no second scan of TaskSubmitted')

      const fourth = await submitTask(submitter, {spec: {...spec, training: {...spec.training, seed: spec.training.seed + 3}}})
      const again = await listTasks(reader)
      assert.equal(again.at(-1)!.specHash, fourth.specHash)
      assert.equal(logReads().length, 2)
      assert.equal(logReads()[1]!.fromBlock, logReads()[0]!.toBlock + 1n, 'the second scan starts after the first')
    } finally {
      await proxy.close()
    }
  })

  it('on a chain that may reorganise, reads the last 64 blocks again until they are final', async () => {
    const spec = await loadJobSpec(smokeMlp)
    const young = await submitTask(submitter, {spec: {...spec, training: {...spec.training, seed: spec.training.seed + 10}}})
    const proxy = await startFaultyRpc(devnet.anvil.rpcUrl, () => ({kind: 'forward'}))
    const scans = () => proxy.seen.filter((request) => request.method === 'eth_getLogs' && isSpecScan(request.params)).length
    try {
      // A client that takes the chain for a public one (another id than the development chains' 31337).
      const {publicClient} = await createClients({rpcUrl: proxy.url, chainId: 11155111})
      assert.equal(finalityDepth(publicClient.chain.id), 64n)
      const reader = {...submitter, publicClient}
      const read = async () => (await listTasks(reader)).find((task) => task.id === young.taskId)!.specHash
      assert.equal(await read(), young.specHash)
      assert.equal(await read(), young.specHash)
      assert.equal(scans(), 2, 'the young task\'s block is read again')
      await publicClient.request({method: 'anvil_mine', params: ['0x40']} as never)
      assert.equal(await read(), young.specHash)
      assert.equal(await read(), young.specHash)
      assert.equal(scans(), 3, 'remembered once 64 blocks deep')
    } finally {
      await proxy.close()
    }
  })
})
