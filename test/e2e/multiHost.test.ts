import assert from 'node:assert/strict'
import {copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type Anvil, createAnvil} from '../../src/chain/anvil.js'
import {networkFileSchema} from '../../src/chain/networkFile.js'
import {devnetAccounts} from '../../src/sim/devnetAccounts.js'
import {runGensyn} from '../helpers/cli.js'
import {startGensyn, stopGensyn} from '../helpers/gensynProcess.js'
import {waitFor} from '../helpers/processes.js'

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, {recursive: true, withFileTypes: true})
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
}

describe('many hosts: actors that share nothing but an RPC URL and a store URL', function () {
  this.timeout(240_000)

  describe('bad input (one line, exit code 2)', () => {
    it('deploy with a malformed key, a non-URL --store, or an --out that exists', async () => {
      const key = await runGensyn(['deploy', '--rpc-url', 'http://127.0.0.1:1', '--private-key', '0x12'])
      assert.equal(key.exitCode, 2)
      assert.equal(String(key.stderr).trim(), 'Error: --private-key: expected 0x followed by 64 hex digits')
      const valid = devnetAccounts({submitters: 0, solvers: 0, verifiers: 0})[0]!.privateKey
      const store = await runGensyn(['deploy', '--rpc-url', 'http://127.0.0.1:1', '--private-key', valid, '--store', '/some/folder'])
      assert.equal(store.exitCode, 2)
      assert.equal(String(store.stderr).trim(), 'Error: --store: expected the http(s):// URL of a store server, got /some/folder')
      const exists = await runGensyn(['deploy', '--rpc-url', 'http://127.0.0.1:1', '--private-key', valid, '--out', 'package.json'])
      assert.equal(exists.exitCode, 2)
      assert.equal(String(exists.stderr).trim(), 'Error: --out: package.json already exists (it may name live contracts); pass --force to replace it')
    })

    it('a role command with a missing or malformed --network file, or a --store that is no URL', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-network-'))
      try {
        const missing = await runGensyn(['tasks', 'list', '--network', path.join(dir, 'none.json'), '--state-dir', dir])
        assert.equal(missing.exitCode, 2)
        assert.match(String(missing.stderr).trim(), /^Error: --network: expected a network file \(from gensyn deploy\), \S+none\.json does not exist$/)
        const bad = path.join(dir, 'bad.json')
        await writeFile(bad, JSON.stringify({rpcUrl: 'http://127.0.0.1:1', chainId: 1}))
        const malformed = await runGensyn(['solve', '--network', bad, '--state-dir', dir])
        assert.equal(malformed.exitCode, 2)
        assert.match(String(malformed.stderr).trim(), /^Error: --network \S+bad\.json: deployBlock: /)
        const store = await runGensyn(['tasks', 'list', '--store', 'ftp://example.org', '--rpc-url', 'http://127.0.0.1:1', '--market', `0x${'11'.repeat(20)}`, '--registry', `0x${'22'.repeat(20)}`])
        assert.equal(store.exitCode, 2)
        assert.equal(String(store.stderr).trim(), 'Error: --store: expected a folder or an http(s):// URL, got ftp://example.org')
      } finally {
        await rm(dir, {recursive: true, force: true})
      }
    })
  })

  describe('a solver, a verifier and a submitter, each with its own folder and key', () => {
    let anvil: Anvil | undefined
    let work: string
    let server: ReturnType<typeof startGensyn> | undefined
    let solver: ReturnType<typeof startGensyn> | undefined
    let verifier: ReturnType<typeof startGensyn> | undefined

    before(async () => {
      work = await mkdtemp(path.join(tmpdir(), 'gensyn-multihost-'))
    })
    after(async () => {
      await Promise.all([stopGensyn(solver), stopGensyn(verifier)])
      await stopGensyn(server)
      await anvil?.stop()
      await rm(work, {recursive: true, force: true})
    })

    it('deploys with gensyn deploy, shares blobs through gensyn store serve, and the job settles accepted', async () => {
      // Keys 0-3 of anvil's dev mnemonic: deployer, submitter, solver, verifier. No actor is told another's.
      const [deployer, submitterKey, solverKey, verifierKey] = devnetAccounts({submitters: 1, solvers: 1, verifiers: 1})
      anvil = createAnvil({blockTime: 1, accounts: 4})
      await anvil.start()

      // The store host: its own folder, reachable only over HTTP.
      const storeHost = path.join(work, 'store-host')
      server = startGensyn(['store', 'serve', '--port', '0', '--dir', path.join(storeHost, 'blobs'), '--json'])
      const listening = await waitFor(() => server!.lines.find((line) => line.type === 'listening'), 30_000, `the store server (${server.output.join('')})`)
      const storeUrl = String(listening.url)
      assert.match(storeUrl, /^http:\/\/127\.0\.0\.1:\d+$/)
      // No --token given: the server made one and printed it once; uploads need it, reads do not.
      assert.equal(listening.tokenGenerated, true)
      const storeToken = String(listening.token)
      assert.match(storeToken, /^[0-9a-f]{48}$/)

      // The deployer: smoke's protocol parameters (no forced errors, a 3-block challenge window).
      const deployerDir = path.join(work, 'deployer')
      const networkFile = path.join(deployerDir, 'network.json')
      const deploy = await runGensyn(['deploy', '--rpc-url', anvil.rpcUrl, '--private-key', deployer!.privateKey, '--out', networkFile, '--store', storeUrl, '--store-token', storeToken, '--scenario', 'fixtures/scenarios/smoke.yaml', '--json'])
      assert.equal(deploy.exitCode, 0, String(deploy.stderr))
      assert.doesNotMatch(String(deploy.stdout), new RegExp(storeToken), 'the token stays out of the output')
      const deployed = JSON.parse(String(deploy.stdout)) as {contracts: {market: string}; file: string}
      const network = networkFileSchema.parse(JSON.parse(await readFile(networkFile, 'utf8')))
      assert.equal(network.store, storeUrl)
      assert.equal(network.storeToken, storeToken)
      assert.equal((await stat(networkFile)).mode & 0o777, 0o600, 'a network file with a token is its owner\'s alone')
      assert.equal(network.contracts.market, deployed.contracts.market)
      assert.equal(network.chainId, 31_337)
      assert.doesNotMatch(await readFile(networkFile, 'utf8'), new RegExp(deployer!.privateKey.slice(2), 'i'), 'no key in the network file')

      // Each actor gets a fresh folder holding nothing but a copy of the network file.
      const hostDir = async (name: string) => {
        const dir = path.join(work, name)
        await mkdir(dir)
        await copyFile(networkFile, path.join(dir, 'network.json'))
        return dir
      }
      const solverDir = await hostDir('solver-host')
      const verifierDir = await hostDir('verifier-host')
      const submitterDir = await hostDir('submitter-host')
      const role = (dir: string, key: {privateKey: string}) => ['--network', path.join(dir, 'network.json'), '--private-key', key.privateKey, '--state-dir', path.join(dir, 'state'), '--json']

      solver = startGensyn(['solve', '--loop', ...role(solverDir, solverKey!)])
      verifier = startGensyn(['verify', '--loop', ...role(verifierDir, verifierKey!)])
      const started = Date.now()
      const submit = await runGensyn(['submit', 'fixtures/jobs/smoke-mlp.yaml', '--wait', ...role(submitterDir, submitterKey!)], {timeout: 180_000})
      const seconds = (Date.now() - started) / 1000
      assert.equal(submit.exitCode, 0, `${String(submit.stderr)}\nsolver:\n${solver.output.join('\n')}\nverifier:\n${verifier.output.join('\n')}`)
      const result = JSON.parse(String(submit.stdout).trim().split('\n').at(-1)!) as {tasks: {taskId: string; status: string; verdict: string}[]; testAccuracy?: number}
      const task = result.tasks[0]!
      assert.deepEqual({status: task.status, verdict: task.verdict}, {status: 'Settled', verdict: 'accepted'})
      // The submitter evaluated the delivered model: the final checkpoint came to it over HTTP, hash-checked.
      assert.ok((result.testAccuracy ?? 0) >= 0.85, `test accuracy ${result.testAccuracy}`)

      // The solver trained and committed it; the verifier replayed it (its checkpoints read from the server).
      assert.ok(solver.lines.some((line) => line.type === 'committed' && line.taskId === task.taskId), solver.output.join('\n'))
      const verdict = verifier.lines.find((line) => line.type === 'verdict' && line.taskId === task.taskId)
      assert.equal(verdict?.accepted, true, verifier.output.join('\n'))

      // The submitter fetches the model with models get, from its own folder.
      const modelDir = path.join(submitterDir, 'model')
      const get = await runGensyn(['models', 'get', task.taskId, '--out', modelDir, '--network', path.join(submitterDir, 'network.json'), '--state-dir', path.join(submitterDir, 'state'), '--json'])
      assert.equal(get.exitCode, 0, String(get.stderr))
      assert.deepEqual((await readdir(modelDir)).sort(), ['model-card.json', 'model.json', 'model.safetensors', 'weights.bin'])
      assert.ok((await stat(path.join(modelDir, 'weights.bin'))).size > 100_000, '784x32 + 32x10 float32 weights')

      // Nothing was shared through a folder: no actor host holds a blob store, the store host holds them all.
      for (const dir of [solverDir, verifierDir, submitterDir]) {
        const files = await filesUnder(dir)
        assert.deepEqual(
          files.filter((file) => file.includes('sha256')),
          [],
          `${dir} holds blobs: ${files.join(', ')}`,
        )
      }
      const blobs = (await filesUnder(path.join(storeHost, 'blobs'))).filter((file) => file.startsWith('sha256'))
      assert.ok(blobs.length >= 6, `spec, 5 checkpoints and a manifest on the store host, got ${blobs.length}`)
      const requests = server.lines.filter((line) => line.type === 'request')
      assert.ok(requests.some((line) => line.method === 'PUT' && line.status === 201), 'blobs uploaded')
      assert.ok(requests.filter((line) => line.method === 'GET' && line.status === 200).length >= 3, 'blobs read back by the verifier and the submitter')
      // The token travels only with the network file: a wrong one on the command line wins, and uploads fail in one line.
      const stranger = await runGensyn(['submit', 'fixtures/jobs/smoke-mlp.yaml', ...role(submitterDir, submitterKey!), '--store-token', 'not-the-token-of-this-store'])
      assert.equal(stranger.exitCode, 1)
      const refusal = JSON.parse(String(stranger.stdout).trim().split('\n').at(-1)!) as {error: {message: string}}
      assert.match(refusal.error.message, /^PUT blob 0x[0-9a-f]{64} to http:\/\/127\.0\.0\.1:\d+: the blob store answered 401 \(uploads need the store token/)
      // A network file names contracts on one chain: pointed at another chain id, a command refuses to run.
      const otherChain = path.join(submitterDir, 'other-chain.json')
      await writeFile(otherChain, JSON.stringify({...network, chainId: 1}))
      const mismatch = await runGensyn(['tasks', 'list', '--network', otherChain, '--state-dir', path.join(submitterDir, 'state')])
      assert.equal(mismatch.exitCode, 2)
      assert.equal(String(mismatch.stderr).trim(), `Error: --network ${otherChain}: expected chain id 1 at ${anvil.rpcUrl}, the chain there reports 31337`)
      console.log(`      multi-host run: job settled in ${seconds.toFixed(1)} s, ${requests.length} store requests, ${blobs.length} blobs`)
    })
  })
})
