import {mkdir, rm} from 'node:fs/promises'
import path from 'node:path'

import {createClients, type GensynPublicClient, type SignerClients} from '../chain/clients.js'
import {deployContracts} from '../chain/deployContracts.js'
import {writeDevnetConfig} from '../chain/devnetConfig.js'
import {createIntervalMining, type IntervalMining} from '../chain/intervalMining.js'
import {BaseError, InvalidInputError} from '../errors/base.js'
import {loadJobSpec} from '../ml/spec/loadJobSpec.js'
import {createSecret, secretPath} from '../privacy/keyFile.js'
import {connect} from '../protocol/connect.js'
import {deriveSeed} from '../random/deriveSeed.js'
import {takeBalanceSnapshot} from './balances.js'
import {deployParamsOf} from './deployParamsOf.js'
import type {DevnetAccount} from './devnetAccounts.js'
import {assertNoDevnetRunning} from './devnetProcesses.js'
import {persistRun, recordProcesses} from './devnetRecords.js'
import {type DevnetRun, keysDirIn} from './devnetRun.js'
import {type PersistedDevnet, readDevnetState} from './devnetState.js'
import {fundSeededAccounts} from './fundSeededAccounts.js'
import {resumeChain} from './resumeChain.js'

type Contracts = PersistedDevnet['contracts']

/**
 * Before anything starts: no other devnet runs in these folders, the saved run (with --state) is read, the folders
 * exist, a seeded run's submitter secrets are written, and with every job private the workers lose raw MNIST.
 */
export async function prepareStateDirs(run: DevnetRun): Promise<void> {
  const {stateDir, statePaths, logDirs, storeDir, actorStateDir} = run.paths
  await assertNoDevnetRunning(stateDir)
  if (statePaths) {
    // Two anvils loading and dumping one file would overwrite each other's chain.
    await assertNoDevnetRunning(statePaths.dir)
  }
  run.ownsStateDir = true
  if (statePaths) {
    run.saved = await readDevnetState(statePaths.chain)
    if (run.saved) assertSameAccounts(run.saved, run.accounts, statePaths.chain)
  }
  await rm(path.join(stateDir, 'devnet.json'), {force: true})
  for (const dir of logDirs) await mkdir(dir, {recursive: true})
  await mkdir(storeDir, {recursive: true})
  if (run.scenario.seed !== undefined && !run.saved) await seedSubmitterSecrets(run.accounts, actorStateDir, run.scenario.seed)
  await recordProcesses(run)
  // With every job private, no worker needs raw samples: withholding MNIST from them makes any read of
  // unmapped data fail the run instead of passing unnoticed (docs/privacy.md).
  // (An invalid job counts as not private here: its submitter reports it, as for any job.)
  const specs = await Promise.all(run.scenario.jobs.map((job) => loadJobSpec(job.path).catch(() => undefined)))
  if (specs.length > 0 && specs.every((spec) => spec?.privacy !== undefined)) {
    const empty = path.join(stateDir, 'no-raw-data')
    await mkdir(empty, {recursive: true})
    run.workerEnv = {...run.workerEnv, GENSYN_MNIST_DIR: empty}
    run.emit({type: 'phase', message: `every job is private: solvers, verifiers and whistleblowers run without raw MNIST (GENSYN_MNIST_DIR=${empty})`})
  }
}

/** Starts anvil (loading the saved chain with --state) and the deployer's clients; mining is set up, not started. */
export async function startChain(run: DevnetRun): Promise<SignerClients> {
  const {anvil, paths} = run
  run.emit({type: 'phase', message: run.saved ? `starting anvil from ${paths.statePaths!.chain}` : 'starting anvil'})
  await anvil.start()
  await recordProcesses(run)
  const clients = await createClients({rpcUrl: anvil.rpcUrl, privateKey: run.accounts[0]!.privateKey})
  if (!clients.walletClient) throw new BaseError('devnet: no wallet client for the deployer account')
  run.mining = createIntervalMining(clients.publicClient, run.scenario.chain.blockTime)
  return clients
}

/** A saved run's chain continues where it stopped; a new one is funded (seeded runs) and gets the contracts. */
export async function deployOrResume(run: DevnetRun, {publicClient, walletClient}: SignerClients, mining: IntervalMining): Promise<Contracts> {
  const {saved, scenario, accounts, anvil} = run
  if (saved) {
    const {head} = await resumeChain(publicClient, saved, mining, run.paths.statePaths!.chain)
    run.deployBlock = saved.deployBlock
    run.dropouts.push(...saved.dropouts)
    run.emit({type: 'phase', message: `anvil on ${anvil.rpcUrl}; resumed the chain at block ${head} (deployed at block ${run.deployBlock}), its clock continued from the last block`})
    return saved.contracts
  }
  run.emit({type: 'phase', message: `anvil on ${anvil.rpcUrl}; deploying contracts`})
  // A crowd's accounts are never anvil's genesis accounts: they are funded in every run.
  const toFund = scenario.seed !== undefined ? accounts : (run.crowd?.accounts ?? [])
  if (toFund.length > 0) await fundSeededAccounts(publicClient, toFund, scenario.chain.accountBalance)
  const deployed = await deployContracts({publicClient, walletClient, params: deployParamsOf(scenario, accounts[0]!.address)})
  run.deployBlock = deployed.deployBlock
  const contracts = {registry: deployed.registry, market: deployed.market, thresholds: deployed.thresholds, config: deployed.config, game: deployed.game, book: deployed.book}
  // Deploy on automine (no block waits), then mine on an interval: a verifier needs a block after the
  // commit for its randomness, whether or not anyone else is sending transactions.
  await mining.start()
  return contracts
}

/**
 * Writes devnet.json (the actors' view of the chain), connects, takes the balance snapshot the report starts from
 * (a resumed run keeps its first) and, with --state, saves the run's record.
 */
export async function writeRunConfig(run: DevnetRun, publicClient: GensynPublicClient, contracts: Contracts): Promise<void> {
  const {accounts, anvil, paths, saved} = run
  const config = {
    rpcUrl: anvil.rpcUrl,
    chainId: await publicClient.getChainId(),
    deployBlock: run.deployBlock,
    contracts,
    accounts: accounts.map(({index, address, privateKey, role}) => ({index, address, privateKey, role})),
    storeDir: paths.storeDir,
    createdAt: new Date().toISOString(),
  }
  await writeDevnetConfig(paths.stateDir, config)
  if (paths.statePaths) await writeDevnetConfig(paths.statePaths.dir, config)
  run.connection = await connect({stateDir: paths.stateDir})
  const before = saved?.before ?? (await takeBalanceSnapshot(run.connection, accounts))
  run.before = before
  if (paths.statePaths) {
    const now = new Date().toISOString()
    run.record = saved ?? {
      version: 1,
      scenario: run.scenario,
      backend: run.backend,
      chainId: config.chainId,
      deployBlock: run.deployBlock,
      contracts,
      accounts: accounts.map(({index, address, role}) => ({index, address, role})),
      before,
      finished: [],
      dropouts: [],
      marketSamples: [],
      elapsedSeconds: 0,
      createdAt: now,
      updatedAt: now,
    }
    run.runStarted = performance.now()
    await persistRun(run)
  }
}

/** After the actors: mining and anvil stop, and the files that point at the chain go with it. */
export async function stopChain(run: DevnetRun): Promise<void> {
  const {stateDir, statePaths} = run.paths
  await run.mining?.stop()
  await run.anvil.stop()
  // The chain is gone with anvil: a stale devnet.json would only send later commands to a dead port.
  // Logs, the blob store and report.json stay for reading.
  await run.recording.catch(() => {})
  // A devnet refused because another runs there must leave that one's files alone.
  if (!run.ownsStateDir) return
  for (const dir of statePaths ? [stateDir, statePaths.dir] : [stateDir]) {
    await rm(path.join(dir, 'processes.json'), {force: true})
    await rm(path.join(dir, 'devnet.json'), {force: true})
  }
}

/** The accounts derive from the scenario's actor counts: a saved run must name the same ones. */
function assertSameAccounts(saved: PersistedDevnet, accounts: readonly DevnetAccount[], file: string): void {
  const same = saved.accounts.length === accounts.length && saved.accounts.every((account, index) => account.address.toLowerCase() === accounts[index]?.address.toLowerCase())
  if (!same) throw new InvalidInputError(`--state: ${file} was written for other accounts: expected the scenario it was started with (${saved.scenario.source})`)
}

/**
 * A seeded run's private jobs use submitter secrets from the seed, so their keys replay too: one a previous run
 * left in the state dir is replaced (a resumed run keeps its own).
 */
async function seedSubmitterSecrets(accounts: readonly DevnetAccount[], actorStateDir: string, seed: number): Promise<void> {
  const submitters = accounts.filter((account) => account.role === 'submitter')
  for (const [position, account] of submitters.entries()) {
    const file = secretPath(keysDirIn(actorStateDir, account))
    await rm(file, {force: true})
    await createSecret(file, deriveSeed(seed, `privacy-secret:submitter-${position + 1}`))
  }
}
