import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {execa, type ResultPromise} from 'execa'
import {type Address, createPublicClient, http} from 'viem'

import {networkFileSchema} from '../../src/chain/networkFile.js'
import {devnetAccounts} from '../../src/sim/devnetAccounts.js'
import {repoRoot, runGensyn} from '../helpers/cli.js'
import {startFaultyRpc, type FaultyRpc} from '../helpers/faultyRpc.js'
import {type GensynProcess, startGensyn, stopGensyn} from '../helpers/gensynProcess.js'
import {waitFor} from '../helpers/processes.js'

const hardhatCli = path.join(repoRoot, 'node_modules', 'hardhat', 'internal', 'cli', 'cli.js')
const hardhatConfig = path.join(repoRoot, 'test', 'fixtures', 'hardhat', 'hardhat.config.cjs')

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as {port: number}
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/**
 * The honest lifecycle on a second EVM implementation: Hardhat 2's node (EDR), not anvil, started from the npm
 * package as a user would, with a block every second. Deploy, solve, verify and settle are the CLI commands of
 * docs/multi-host.md, each a separate process with its own key and folder, talking to the node through a
 * counting proxy (so the test can say how many RPC calls the run took).
 */
describe('a second EVM implementation: the honest lifecycle on a Hardhat node (docs/multi-host.md)', function () {
  this.timeout(180_000)
  let node: ResultPromise | undefined
  let proxy: FaultyRpc | undefined
  let work: string
  const actors: GensynProcess[] = []

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'gensyn-hardhat-'))
  })
  after(async () => {
    await Promise.all(actors.map((actor) => stopGensyn(actor)))
    await proxy?.close()
    if (node && node.exitCode === null) node.kill('SIGTERM')
    await node
    await rm(work, {recursive: true, force: true})
  })

  it('deploys with gensyn deploy, one task is solved, verified and settled, and the ether is conserved', async () => {
    const port = await freePort()
    node = execa(process.execPath, [hardhatCli, '--config', hardhatConfig, 'node', '--hostname', '127.0.0.1', '--port', String(port)], {
      cwd: repoRoot,
      env: {HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', FORCE_COLOR: '0'},
      reject: false,
      stdin: 'ignore',
    })
    const nodeUrl = `http://127.0.0.1:${port}`
    const client = createPublicClient({transport: http(nodeUrl, {retryCount: 0})})
    await waitFor(() => client.getChainId().then(() => true, () => undefined), 60_000, `hardhat node at ${nodeUrl}`)
    proxy = await startFaultyRpc(nodeUrl, () => ({kind: 'forward'}))

    // Hardhat's dev accounts are anvil's (mnemonic `test test … junk`): deployer (and treasury), submitter, solver, verifier.
    const [deployer, submitterKey, solverKey, verifierKey] = devnetAccounts({submitters: 1, solvers: 1, verifiers: 1})
    const networkFile = path.join(work, 'network.json')
    const deploy = await runGensyn(['deploy', '--rpc-url', proxy.url, '--private-key', deployer!.privateKey, '--out', networkFile, '--scenario', 'fixtures/scenarios/smoke.yaml', '--poll-interval', '1000', '--json'])
    assert.equal(deploy.exitCode, 0, String(deploy.stderr))
    const network = networkFileSchema.parse(JSON.parse(await readFile(networkFile, 'utf8')))
    assert.equal(network.chainId, 31_337)
    // Every actor polls once per block (receipts, head, market): recorded for them by deploy.
    assert.equal(network.pollMs, 1000)

    const store = path.join(work, 'store')
    const role = (name: string, key: {privateKey: string}) => ['--network', networkFile, '--store', store, '--private-key', key.privateKey, '--state-dir', path.join(work, name), '--json']
    const tracked: Address[] = [deployer!.address, submitterKey!.address, solverKey!.address, verifierKey!.address, ...Object.values(network.contracts)]
    const from = await client.getBlockNumber({cacheTime: 0})
    const before = await totalBalance(tracked, from)

    actors.push(startGensyn(['solve', '--loop', ...role('solver', solverKey!)]), startGensyn(['verify', '--loop', ...role('verifier', verifierKey!)]))
    const callsBefore = proxy.seen.length
    const started = Date.now()
    const submit = await runGensyn(['submit', 'fixtures/jobs/smoke-mlp.yaml', '--wait', ...role('submitter', submitterKey!)], {timeout: 150_000})
    const seconds = (Date.now() - started) / 1000
    const calls = proxy.seen.length - callsBefore
    const output = actors.map((actor) => actor.output.join('\n')).join('\n---\n')
    // stdout too: with --json, submit reports a failed wait there as an error object
    assert.equal(submit.exitCode, 0, `${String(submit.stderr)}\n${String(submit.stdout)}\n${output}`)
    const result = JSON.parse(String(submit.stdout).trim().split('\n').at(-1)!) as {tasks: {taskId: string; status: string; verdict: string}[]}
    assert.deepEqual(
      result.tasks.map((task) => [task.status, task.verdict]),
      [['Settled', 'accepted']],
    )
    assert.ok(actors[1]!.lines.some((line) => line.type === 'verdict' && line.accepted === true), output)

    // Conservation: what the tracked accounts and contracts held before the task, less the gas their transactions
    // paid, is what they hold after (the fee went in, the payouts and refund came out, nothing else moved).
    const to = await client.getBlockNumber({cacheTime: 0})
    const fees = await feesPaid(new Set(tracked.map((address) => address.toLowerCase())), from + 1n, to)
    assert.equal(await totalBalance(tracked, to), before - fees)
    console.log(`      hardhat run: task settled in ${seconds.toFixed(1)} s, ${to - from} blocks, ${calls} RPC calls (${((calls / seconds) * 100).toFixed(0)} per 100 s for 3 actors)`)

    async function totalBalance(addresses: readonly Address[], blockNumber: bigint): Promise<bigint> {
      const balances = await Promise.all(addresses.map((address) => client.getBalance({address, blockNumber})))
      return balances.reduce((sum, balance) => sum + balance, 0n)
    }

    async function feesPaid(senders: Set<string>, first: bigint, last: bigint): Promise<bigint> {
      let fees = 0n
      for (let number = first; number <= last; number++) {
        const block = await client.getBlock({blockNumber: number, includeTransactions: true})
        for (const transaction of block.transactions) {
          if (!senders.has(transaction.from.toLowerCase())) continue
          const receipt = await client.getTransactionReceipt({hash: transaction.hash})
          fees += receipt.gasUsed * receipt.effectiveGasPrice
        }
      }
      return fees
    }
  })
})
