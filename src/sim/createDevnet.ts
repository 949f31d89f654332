import {mkdir, readFile, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {parseEther} from 'viem'

import {createAnvil} from '../chain/anvil.js'
import {createClients} from '../chain/clients.js'
import {deployContracts} from '../chain/deployContracts.js'
import {writeDevnetConfig} from '../chain/devnetConfig.js'
import {BaseError} from '../errors/base.js'
import {connect, type Connection} from '../protocol/connect.js'
import {type BalanceSnapshot, takeBalanceSnapshot} from './balances.js'
import {buildReport, type DevnetReport} from './buildReport.js'
import {actorRoster, type RosterEntry} from './actorRoster.js'
import {type DevnetAccount, devnetAccounts} from './devnetAccounts.js'
import type {ResolvedScenario} from './scenario.js'
import {type MarketSampler, startMarketSampler} from './sampleMarket.js'
import {type ActorExit, type ActorHandle, spawnActor} from './spawnActor.js'
import {sleep} from '../actors/sleep.js'

export type DevnetEvent =
  | {type: 'phase'; message: string}
  | {type: 'actor'; actor: string; role: string; event: Record<string, unknown>}
  /** `killed`: the devnet killed it on purpose (a dropout solver), so its exit is not a crash. */
  | {type: 'actor-exit'; actor: string; role: ActorHandle['role']; exit: ActorExit; killed: boolean}

/** A dropout solver the devnet killed: after which stored checkpoint of which task. */
export type Dropout = {actor: string; taskId: string; step: number}

export type DevnetOptions = {
  scenario: ResolvedScenario
  stateDir: string
  /** Overrides the scenario's backend for every actor. */
  backend?: 'wasm' | 'cpu' | 'gpu' | undefined
  port?: number | undefined
  onEvent?: (event: DevnetEvent) => void
}

export type SubmissionOutcome = {job: string; submitter: string; exit: ActorExit; result: Record<string, unknown> | undefined}

export type Devnet = {
  readonly rpcUrl: string
  readonly accounts: DevnetAccount[]
  readonly actors: ActorHandle[]
  /** The long-running actors and what each plays. */
  readonly roster: RosterEntry[]
  /** Starts anvil, deploys, funds and writes devnet.json, then spawns the solver and verifier processes. */
  start(): Promise<void>
  /** Spawns one submitter process per job (each submitter's jobs in order) and waits for them all. */
  runJobs(): Promise<SubmissionOutcome[]>
  /** Stops the actor processes but keeps the chain up, so the report can still read it. */
  stopActors(): Promise<void>
  report(submissions: SubmissionOutcome[]): Promise<DevnetReport>
  /** The dropout solvers killed so far. */
  readonly dropouts: Dropout[]
  /** Stops every actor, then anvil. Safe to call twice, and after a failed start. */
  stop(): Promise<void>
}

/**
 * A local devnet: one anvil, the contracts, and every actor as its own `gensyn` process. It simulates
 * nothing the protocol does; it only starts the parties and reads the chain afterwards.
 */
export function createDevnet(options: DevnetOptions): Devnet {
  const {scenario} = options
  const stateDir = path.resolve(options.stateDir)
  const logDir = path.join(stateDir, 'logs')
  const storeDir = path.join(stateDir, 'store')
  const backend = options.backend ?? scenario.backend
  const accounts = devnetAccounts({
    submitters: scenario.actors.submitters,
    solvers: scenario.actors.solvers.length,
    verifiers: scenario.actors.verifiers.length,
    whistleblowers: scenario.actors.whistleblowers.length,
  })
  const roster = actorRoster(scenario, accounts)
  // The devnet handles Ctrl-C itself: actors stop first, the report reads the chain, and only then anvil stops.
  const anvil = createAnvil({
    port: options.port,
    accounts: accounts.length,
    balance: scenario.chain.accountBalance,
    handleSignals: false,
  })
  const actors: ActorHandle[] = []
  const dropouts: Dropout[] = []
  // Stops the submitters' waits for their jobs' `at` when the run ends first.
  const stopping = new AbortController()
  let sampler: MarketSampler | undefined
  const emit = options.onEvent ?? (() => {})
  let connection: Connection | undefined
  let before: BalanceSnapshot | undefined
  let deployBlock = 0n
  let stopped = false
  let anvilStopped = false

  const common = () => ['--json', '--state-dir', stateDir, '--backend', backend]

  function spawn(entry: RosterEntry): ActorHandle {
    const {name, role, account} = entry
    const handle: ActorHandle = spawnActor({
      name,
      role,
      account: account.index,
      args: [...entry.args, '--account', String(account.index), ...common()],
      logDir,
      onJson(event) {
        emit({type: 'actor', actor: name, role, event})
        // docs/market.md, section 5: a dropout solver dies (SIGKILL, no clean-up) once it has stored its first
        // checkpoint of a claimed task, and is not restarted; the task must come back through expire.
        if (entry.dropout && event.type === 'checkpoint' && !handle.killed) {
          dropouts.push({actor: name, taskId: String(event.taskId), step: Number(event.step)})
          emit({type: 'phase', message: `${name}: killed (SIGKILL) after storing its checkpoint at step ${String(event.step)} of task ${String(event.taskId)}`})
          void handle.kill()
        }
      },
    })
    actors.push(handle)
    void handle.exited.then((exit) => emit({type: 'actor-exit', actor: name, role, exit, killed: handle.killed}))
    return handle
  }

  return {
    get rpcUrl() {
      return anvil.rpcUrl
    },
    accounts,
    actors,
    roster,

    async start() {
      await assertNoDevnetRunning(stateDir)
      await rm(path.join(stateDir, 'devnet.json'), {force: true})
      await mkdir(logDir, {recursive: true})
      await mkdir(storeDir, {recursive: true})
      await writeProcesses(stateDir, {devnetPid: process.pid, actors: []})

      emit({type: 'phase', message: 'starting anvil'})
      await anvil.start()
      const deployer = accounts[0]!
      const {publicClient, walletClient} = await createClients({rpcUrl: anvil.rpcUrl, privateKey: deployer.privateKey})
      if (!walletClient) throw new BaseError('devnet: no wallet client for the deployer account')
      emit({type: 'phase', message: `anvil on ${anvil.rpcUrl}; deploying contracts`})
      const {protocol, chain} = scenario
      const optional = <T, U>(value: T | undefined, map: (value: T) => U) => (value === undefined ? {} : map(value))
      const deployed = await deployContracts({
        publicClient,
        walletClient,
        params: {
          treasury: deployer.address,
          unbondingDelay: BigInt(chain.unbondingDelay),
          jackpotSeed: parseEther(protocol.jackpotSeed),
          config: {
            solverStake: parseEther(chain.solverStake),
            verifierStake: parseEther(chain.verifierStake),
            challengeWindowBlocks: BigInt(chain.challengeWindow),
            ...optional(protocol.challengeDeposit, (value) => ({challengeDeposit: parseEther(value)})),
            ...optional(protocol.revealWindow, (value) => ({revealWindowBlocks: BigInt(value)})),
            ...optional(protocol.roundTimeout, (value) => ({roundTimeoutBlocks: BigInt(value)})),
            ...optional(protocol.committeeTimeout, (value) => ({committeeTimeoutBlocks: BigInt(value)})),
            ...optional(protocol.taxBps, (value) => ({taxBps: value})),
            ...optional(protocol.forcedErrorBps, (value) => ({forcedErrorBps: value})),
            ...optional(protocol.jackpotCap, (value) => ({jackpotCap: parseEther(value)})),
            ...optional(protocol.maxChallengers, (value) => ({maxChallengers: value})),
            ...optional(protocol.committeeSize, (value) => ({committeeSize: value})),
          },
          // docs/market.md, "Parameters": prices in ETH per work unit in the scenario, wei on chain.
          market: {
            ...optional(protocol.initialPrice, (value) => ({initialPrice: parseEther(value)})),
            ...optional(protocol.priceFloor, (value) => ({priceFloor: parseEther(value)})),
            ...optional(protocol.priceCeiling, (value) => ({priceCeiling: parseEther(value)})),
            ...optional(protocol.priceStepBps, (value) => ({priceStepBps: value})),
            ...optional(protocol.targetUtilizationBps, (value) => ({targetUtilizationBps: value})),
            ...optional(protocol.priceEpochBlocks, (value) => ({priceEpochBlocks: value})),
            ...optional(protocol.verifierFeeBps, (value) => ({verifierFeeBps: value})),
            ...optional(protocol.timeoutSlashBps, (value) => ({timeoutSlashBps: value})),
            ...optional(protocol.claimTimeoutSeconds, (value) => ({claimTimeoutSeconds: BigInt(value)})),
            ...optional(protocol.trainingBaseSeconds, (value) => ({trainingBaseSeconds: BigInt(value)})),
            ...optional(protocol.minWorkUnitsPerSecond, (value) => ({minWorkUnitsPerSecond: BigInt(value)})),
            ...optional(protocol.verificationTimeoutSeconds, (value) => ({verificationTimeoutSeconds: BigInt(value)})),
          },
        },
      })
      deployBlock = deployed.deployBlock
      // Deploy on automine (no block waits), then mine on an interval: a verifier needs a block after the
      // commit for its randomness, whether or not anyone else is sending transactions.
      await publicClient.request({method: 'evm_setIntervalMining', params: [scenario.chain.blockTime]} as never)
      await writeDevnetConfig(stateDir, {
        rpcUrl: anvil.rpcUrl,
        chainId: await publicClient.getChainId(),
        deployBlock: deployed.deployBlock,
        contracts: {registry: deployed.registry, market: deployed.market, thresholds: deployed.thresholds, config: deployed.config, game: deployed.game, book: deployed.book},
        accounts: accounts.map(({index, address, privateKey, role}) => ({index, address, privateKey, role})),
        storeDir,
        createdAt: new Date().toISOString(),
      })
      connection = await connect({stateDir})
      before = await takeBalanceSnapshot(connection, accounts)
      emit({type: 'phase', message: `contracts: market ${deployed.market}, registry ${deployed.registry}`})

      sampler = startMarketSampler(connection, Math.max(500, scenario.chain.blockTime * 1000))
      for (const entry of roster) spawn(entry)
      await writeProcesses(stateDir, {devnetPid: process.pid, anvilPid: anvil.pid, actors: actors.map(({name, pid}) => ({name, pid}))})
      emit({type: 'phase', message: `spawned ${roster.map((entry) => (entry.strategy === 'honest' ? entry.name : `${entry.name} (${entry.strategy})`)).join(', ')} (backend ${backend})`})
    },

    async runJobs() {
      const submitters = accounts.filter((account) => account.role === 'submitter')
      const queues = new Map<DevnetAccount, ResolvedScenario['jobs']>()
      scenario.jobs.forEach((job, index) => {
        const submitter = submitters[job.submitter ?? index % submitters.length]
        if (!submitter) throw new BaseError(`scenario ${scenario.name}: jobs[${index}].submitter: expected an index below ${submitters.length}`)
        queues.set(submitter, [...(queues.get(submitter) ?? []), job])
      })
      const started = performance.now()
      const outcomes = await Promise.all(
        [...queues].map(async ([account, jobs]) => {
          const results: SubmissionOutcome[] = []
          // One process per account at a time (two would race for its nonces): a submitter posts its jobs in
          // order, each once its `at` has come (a demand shift) and the one before has finished.
          for (const [jobNumber, job] of jobs.entries()) {
            await sleep(job.at * 1000 - (performance.now() - started), stopping.signal)
            if (stopped) break
            const name = `submitter-${submitters.indexOf(account) + 1}${jobs.length > 1 ? `-job-${jobNumber + 1}` : ''}`
            let result: Record<string, unknown> | undefined
            const count = job.count > 1 ? ['--count', String(job.count)] : []
            const handle = spawnActor({
              name,
              role: 'submitter',
              account: account.index,
              args: ['submit', job.path, '--wait', ...count, '--account', String(account.index), ...common()],
              logDir,
              onJson: (value) => {
                result = value
                emit({type: 'actor', actor: name, role: 'submitter', event: value})
              },
            })
            actors.push(handle)
            emit({type: 'phase', message: `${name}: submitting ${job.count > 1 ? `${job.count} copies of ` : ''}${path.relative(process.cwd(), job.path)}`})
            const exit = await handle.exited
            emit({type: 'actor-exit', actor: name, role: 'submitter', exit, killed: false})
            results.push({job: job.path, submitter: name, exit, result})
          }
          return results
        }),
      )
      return outcomes.flat()
    },

    async report(submissions) {
      if (!connection || !before) throw new BaseError('devnet: report() before start()')
      return buildReport({connection, accounts, roster, before, deployBlock, submissions, scenario, actors, dropouts, marketSamples: sampler?.samples ?? []})
    },

    dropouts,

    async stopActors() {
      stopped = true
      stopping.abort()
      await Promise.all(actors.map((actor) => actor.stop()))
      await sampler?.stop()
    },

    async stop() {
      if (anvilStopped) return
      anvilStopped = true
      await this.stopActors()
      await anvil.stop()
      // The chain is gone with anvil: a stale devnet.json would only send later commands to a dead port.
      // Logs, the blob store and report.json stay for reading.
      await rm(path.join(stateDir, 'processes.json'), {force: true})
      await rm(path.join(stateDir, 'devnet.json'), {force: true})
    },
  }
}

/** Who is running, for `devnet` tooling and the orphan tests. */
type ProcessesFile = {devnetPid: number; anvilPid?: number | undefined; actors: {name: string; pid: number | undefined}[]}

async function writeProcesses(stateDir: string, value: ProcessesFile): Promise<void> {
  await mkdir(stateDir, {recursive: true})
  await writeFile(path.join(stateDir, 'processes.json'), JSON.stringify(value, null, 2))
}

async function assertNoDevnetRunning(stateDir: string): Promise<void> {
  let previous: ProcessesFile
  try {
    previous = JSON.parse(await readFile(path.join(stateDir, 'processes.json'), 'utf8')) as ProcessesFile
  } catch {
    return
  }
  if (previous.devnetPid === process.pid) return
  try {
    process.kill(previous.devnetPid, 0)
  } catch {
    return // a stale file from a devnet that died
  }
  throw new BaseError(`a devnet is already running in ${stateDir} (pid ${previous.devnetPid})`, {
    details: 'Stop it with Ctrl-C, or pass another --state-dir.',
  })
}
