import {mkdir, rm} from 'node:fs/promises'
import path from 'node:path'

import {createAnvil} from '../chain/anvil.js'
import {createClients} from '../chain/clients.js'
import {deployContracts} from '../chain/deployContracts.js'
import {writeDevnetConfig} from '../chain/devnetConfig.js'
import {createIntervalMining, type IntervalMining} from '../chain/intervalMining.js'
import {BaseError, InvalidInputError} from '../errors/base.js'
import {connect, type Connection} from '../protocol/connect.js'
import {type BalanceSnapshot, takeBalanceSnapshot} from './balances.js'
import {buildReport, type DevnetReport} from './buildReport.js'
import {actorRoster, type RosterEntry} from './actorRoster.js'
import {type DevnetAccount, scenarioAccounts} from './devnetAccounts.js'
import {assertNoDevnetRunning, writeDevnetProcesses} from './devnetProcesses.js'
import {devnetStatePaths, type PersistedDevnet, readDevnetState, writeDevnetState} from './devnetState.js'
import {deployParamsOf} from './deployParamsOf.js'
import {resumeChain} from './resumeChain.js'
import type {ResolvedScenario} from './scenario.js'
import {type MarketSample, type MarketSampler, startMarketSampler} from './sampleMarket.js'
import {type PausedDevnet, pauseDevnet} from './pauseDevnet.js'
import {postScenarioProfiles} from './postScenarioProfiles.js'
import {fundSeededAccounts} from './fundSeededAccounts.js'
import {type ActorHandle, spawnActor} from './spawnActor.js'
import type {DevnetEvent, Dropout, SubmissionOutcome} from './devnetEvents.js'
import {runScenarioJobs} from './runScenarioJobs.js'
import {type ActorCrash, type SupervisedActor, superviseActor} from './superviseActor.js'
import {type ChaosKill, type ChaosMonkey, startChaosMonkey} from './chaosMonkey.js'
import {crashReport} from './report/crashReport.js'
import {loadJobSpec} from '../ml/spec/loadJobSpec.js'
import {createSecret, secretPath} from '../privacy/keyFile.js'
import {deriveSeed} from '../random/deriveSeed.js'
import {type BackendChoice} from '../ml/backend/runtimeId.js'

export type {DevnetEvent, SubmissionOutcome} from './devnetEvents.js'

export type DevnetOptions = {
  scenario: ResolvedScenario
  stateDir: string
  /** Overrides the scenario's backend (actors with a backend of their own keep it). */
  backend?: BackendChoice | undefined
  port?: number | undefined
  /**
   * Persist the run in this file (the chain, anvil's dump) and the folder `<state>.d` beside it (everything else,
   * src/sim/devnetState.ts). An existing one is resumed: no deploy, the same scenario, finished jobs are not
   * submitted again and jobs cut short are followed to settlement. The scenario passed must be the saved one.
   */
  state?: string | undefined
  onEvent?: (event: DevnetEvent) => void
  /** anvil went away while the devnet ran (killed from outside, crashed): one line on how. */
  onChainDied?: ((reason: string) => void) | undefined
  /**
   * A second folder every actor's log is written to, beside `<stateDir>/logs`: the run folder's own logs/, which
   * keeps this run's lines only (the state dir's logs are appended to by every run).
   */
  runLogDir?: string | undefined
}


export type Devnet = {
  readonly rpcUrl: string
  readonly accounts: DevnetAccount[]
  readonly actors: ActorHandle[]
  /** The long-running actors and what each plays. */
  readonly roster: RosterEntry[]
  /** Whether start() picked up a run saved with `state` instead of deploying a new chain. */
  readonly resumed: boolean
  /** Starts anvil, deploys, funds and writes devnet.json, then spawns the solver and verifier processes. */
  start(): Promise<void>
  /** Spawns one submitter process per job (each submitter's jobs in order) and waits for them all. */
  runJobs(): Promise<SubmissionOutcome[]>
  /** Stops the actor processes but keeps the chain up, so the report can still read it. */
  stopActors(): Promise<void>
  report(submissions: SubmissionOutcome[]): Promise<DevnetReport>
  /** The dropout solvers killed so far. */
  readonly dropouts: Dropout[]
  /** Every process death the supervisor saw (chaos kills included), in order. */
  readonly crashes: readonly ActorCrash[]
  /** The chaos monkey's kills so far (scenario.chaos). */
  readonly chaosKills: readonly ChaosKill[]
  /** Stops every actor, then anvil. Safe to call twice, and after a failed start. */
  stop(): Promise<void>
  /** Read access to the running chain (after start()), for live views such as the dashboard. */
  readonly connection: Connection | undefined
  /** SIGSTOPs the actors and stops mining, so chain time does not run on (src/sim/pauseDevnet.ts). */
  pause(): Promise<void>
  /** Continues the chain's clock from the last block, restores interval mining, SIGCONTs the actors. */
  resume(): Promise<void>
  readonly paused: boolean
}

/**
 * A local devnet: one anvil, the contracts, and every actor as its own `gensyn` process. It simulates
 * nothing the protocol does; it only starts the parties and reads the chain afterwards.
 */
export function createDevnet(options: DevnetOptions): Devnet {
  const {scenario} = options
  const stateDir = path.resolve(options.stateDir)
  const logDir = path.join(stateDir, 'logs')
  const logDirs = options.runLogDir === undefined ? [logDir] : [logDir, path.resolve(options.runLogDir)]
  const statePaths = options.state === undefined ? undefined : devnetStatePaths(options.state)
  // With --state, everything the actors keep (blobs, solver secrets and checkpoints) lives beside the chain's
  // dump, so a resume finds it whatever --state-dir it is given; the state dir keeps logs and reports.
  const actorStateDir = statePaths?.dir ?? stateDir
  const storeDir = statePaths?.store ?? path.join(stateDir, 'store')
  const backend = options.backend ?? scenario.backend
  const accounts = scenarioAccounts(scenario.actors, scenario.seed)
  const roster = actorRoster(scenario, accounts)
  // The devnet handles Ctrl-C itself: actors stop first, the report reads the chain, and only then anvil stops.
  const anvil = createAnvil({
    port: options.port,
    accounts: accounts.length,
    balance: scenario.chain.accountBalance,
    handleSignals: false,
    state: statePaths?.chain,
    // anvil writes its dump when it exits on SIGTERM: give it time before the SIGKILL.
    stopTimeout: statePaths ? 30_000 : undefined,
    onUnexpectedExit: (reason) => options.onChainDied?.(reason),
  })
  const actors: SupervisedActor[] = []
  const dropouts: Dropout[] = []
  const crashes: ActorCrash[] = []
  let chaos: ChaosMonkey | undefined
  // Stops the submitters' waits for their jobs' `at` when the run ends first.
  const stopping = new AbortController()
  let sampler: MarketSampler | undefined
  const emit = options.onEvent ?? (() => {})
  let connection: Connection | undefined
  let before: BalanceSnapshot | undefined
  let deployBlock = 0n
  let stopped = false
  let anvilStopped = false
  let saved: PersistedDevnet | undefined
  let record: PersistedDevnet | undefined
  let runStarted = performance.now()
  let writing: Promise<void> = Promise.resolve()
  let recording: Promise<void> = Promise.resolve()
  let ready = false
  let ownsStateDir = false
  let paused: PausedDevnet | undefined

  const common = (own?: BackendChoice) => ['--json', '--state-dir', actorStateDir, '--backend', own ?? backend]
  // Private jobs' secrets and key files (docs/privacy.md): each submitter account its own, beside the actors' state.
  const keysDirOf = (account: DevnetAccount) => keysDirIn(actorStateDir, account)
  // The actors' poll interval on sub-second blocks; start() adds an empty MNIST folder when every job is private.
  let workerEnv: Record<string, string> | undefined = actorPollEnv(scenario.chain.blockTime)
  let mining: IntervalMining | undefined
  const savedSamples = (): MarketSample[] => saved?.marketSamples ?? []

  /** Saves the run's record (one write at a time, atomically): after the deploy, each finished job, and at stop. */
  function persist(update: Partial<PersistedDevnet> = {}): Promise<void> {
    if (!statePaths || !record) return Promise.resolve()
    record = {
      ...record,
      ...update,
      dropouts: [...dropouts],
      marketSamples: [...savedSamples(), ...(sampler?.samples ?? [])],
      elapsedSeconds: (saved?.elapsedSeconds ?? 0) + (performance.now() - runStarted) / 1000,
    }
    const next = record
    writing = writing.catch(() => {}).then(() => writeDevnetState(statePaths.chain, next))
    return writing
  }

  /** processes.json in the state dir (for `devnet status` / `down`) and, with --state, beside the actors' devnet.json. */
  function recordProcesses(): Promise<void> {
    recording = recording.catch(() => {}).then(() => writeProcesses())
    return recording
  }

  async function writeProcesses(): Promise<void> {
    const describe = ({name, role, pid, exit}: ActorHandle) => ({name, role, pid, exited: exit !== undefined})
    const value = {
      devnetPid: process.pid,
      anvilPid: anvil.pid,
      rpcUrl: anvil.status === 'listening' ? anvil.rpcUrl : undefined,
      stateFile: statePaths?.chain,
      startedAt: new Date(performance.timeOrigin).toISOString(),
      ready,
      actors: actors.filter((actor) => actor.role !== 'submitter').map(describe),
      submitters: actors.filter((actor) => actor.role === 'submitter').map(describe),
    }
    await writeDevnetProcesses(stateDir, value)
    if (statePaths) await writeDevnetProcesses(statePaths.dir, value)
  }

  function spawn(entry: RosterEntry): SupervisedActor {
    const {name, role, account} = entry
    const handle = supervise(() =>
      spawnActor({
        name,
        role,
        account: account.index,
        args: [...entry.args, '--account', String(account.index), ...common(entry.backend)],
        logDirs,
        env: workerEnv,
        onJson(event) {
          emit({type: 'actor', actor: name, role, event})
          chaos?.observe(handle, event)
          // docs/market.md, section 5: a dropout solver dies (SIGKILL, no clean-up) once it has stored its first
          // checkpoint of a claimed task, and is not restarted; the task must come back through expire.
          if (entry.dropout && event.type === 'checkpoint' && !handle.killed) {
            dropouts.push({actor: name, taskId: String(event.taskId), step: Number(event.step)})
            emit({type: 'phase', message: `${name}: killed (SIGKILL) after storing its checkpoint at step ${String(event.step)} of task ${String(event.taskId)}`})
            void handle.kill()
            // Saved at once: a resume after a crash must not bring it back.
            void persist().catch(() => {})
          }
        },
      }),
    )
    void handle.exited.then((exit) => {
      emit({type: 'actor-exit', actor: name, role, exit, killed: handle.killed})
      if (!anvilStopped) void recordProcesses().catch(() => {})
    })
    return handle
  }

  /**
   * Runs an actor under the supervisor: a process that dies is started again after a backoff (from the same
   * state dir), the crash is reported, and processes.json follows the new pid.
   */
  function supervise(start: () => ActorHandle, more: Pick<Parameters<typeof superviseActor>[0], 'restart' | 'shouldRestart'> = {}): SupervisedActor {
    // Unset while superviseActor starts the first process (onStart runs before it returns).
    let supervised: SupervisedActor | undefined
    const handle = superviseActor({
      start,
      ...more,
      onStart() {
        if (!supervised) return
        chaos?.started(supervised)
        if (!anvilStopped) void recordProcesses().catch(() => {})
      },
      onCrash(crash) {
        crashes.push(crash)
        emit({type: 'actor-crash', actor: crash.actor, role: crash.role, crash})
      },
    })
    supervised = handle
    actors.push(handle)
    chaos?.started(handle)
    return handle
  }

  return {
    get rpcUrl() {
      return anvil.rpcUrl
    },
    accounts,
    actors,
    roster,

    get resumed() {
      return saved !== undefined
    },

    async start() {
      await assertNoDevnetRunning(stateDir)
      if (statePaths) {
        // Two anvils loading and dumping one file would overwrite each other's chain.
        await assertNoDevnetRunning(statePaths.dir)
      }
      ownsStateDir = true
      if (statePaths) {
        saved = await readDevnetState(statePaths.chain)
        if (saved) assertSameAccounts(saved, accounts, statePaths.chain)
      }
      await rm(path.join(stateDir, 'devnet.json'), {force: true})
      for (const dir of logDirs) await mkdir(dir, {recursive: true})
      await mkdir(storeDir, {recursive: true})
      if (scenario.seed !== undefined && !saved) await seedSubmitterSecrets(accounts, actorStateDir, scenario.seed)
      await recordProcesses()
      // With every job private, no worker needs raw samples: withholding MNIST from them makes any read of
      // unmapped data fail the run instead of passing unnoticed (docs/privacy.md).
      // (An invalid job counts as not private here: its submitter reports it, as for any job.)
      const specs = await Promise.all(scenario.jobs.map((job) => loadJobSpec(job.path).catch(() => undefined)))
      if (specs.length > 0 && specs.every((spec) => spec?.privacy !== undefined)) {
        const empty = path.join(stateDir, 'no-raw-data')
        await mkdir(empty, {recursive: true})
        workerEnv = {...workerEnv, GENSYN_MNIST_DIR: empty}
        emit({type: 'phase', message: `every job is private: solvers, verifiers and whistleblowers run without raw MNIST (GENSYN_MNIST_DIR=${empty})`})
      }

      emit({type: 'phase', message: saved ? `starting anvil from ${statePaths!.chain}` : 'starting anvil'})
      await anvil.start()
      await recordProcesses()
      const deployer = accounts[0]!
      const {publicClient, walletClient} = await createClients({rpcUrl: anvil.rpcUrl, privateKey: deployer.privateKey})
      if (!walletClient) throw new BaseError('devnet: no wallet client for the deployer account')
      mining = createIntervalMining(publicClient, scenario.chain.blockTime)
      let contracts: PersistedDevnet['contracts']
      if (saved) {
        const {head} = await resumeChain(publicClient, saved, mining, statePaths!.chain)
        deployBlock = saved.deployBlock
        contracts = saved.contracts
        dropouts.push(...saved.dropouts)
        emit({type: 'phase', message: `anvil on ${anvil.rpcUrl}; resumed the chain at block ${head} (deployed at block ${deployBlock}), its clock continued from the last block`})
      } else {
        emit({type: 'phase', message: `anvil on ${anvil.rpcUrl}; deploying contracts`})
        if (scenario.seed !== undefined) await fundSeededAccounts(publicClient, accounts, scenario.chain.accountBalance)
        const deployed = await deployContracts({publicClient, walletClient, params: deployParamsOf(scenario, deployer.address)})
        deployBlock = deployed.deployBlock
        contracts = {registry: deployed.registry, market: deployed.market, thresholds: deployed.thresholds, config: deployed.config, game: deployed.game, book: deployed.book}
        // Deploy on automine (no block waits), then mine on an interval: a verifier needs a block after the
        // commit for its randomness, whether or not anyone else is sending transactions.
        await mining.start()
      }
      const config = {
        rpcUrl: anvil.rpcUrl,
        chainId: await publicClient.getChainId(),
        deployBlock,
        contracts,
        accounts: accounts.map(({index, address, privateKey, role}) => ({index, address, privateKey, role})),
        storeDir,
        createdAt: new Date().toISOString(),
      }
      await writeDevnetConfig(stateDir, config)
      if (statePaths) await writeDevnetConfig(statePaths.dir, config)
      connection = await connect({stateDir})
      before = saved?.before ?? (await takeBalanceSnapshot(connection, accounts))
      if (statePaths) {
        const now = new Date().toISOString()
        record = saved ?? {
          version: 1,
          scenario,
          backend,
          chainId: config.chainId,
          deployBlock,
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
        runStarted = performance.now()
        await persist()
      }
      emit({type: 'phase', message: `contracts: market ${contracts.market}, registry ${contracts.registry}`})

      if (!saved && scenario.profile) await postScenarioProfiles({scenario, profile: scenario.profile, roster, logDirs, stateDir: actorStateDir, env: workerEnv, emit})
      sampler = startMarketSampler(connection, Math.max(500, scenario.chain.blockTime * 1000))
      // A dropout solver killed in an earlier run stays dead: its task must still come back through expire.
      const gone = new Set(dropouts.map((dropout) => dropout.actor))
      const live = roster.filter((entry) => !gone.has(entry.name))
      for (const entry of live) spawn(entry)
      if (scenario.chaos && scenario.chaos.kills > 0) {
        chaos = startChaosMonkey(scenario.chaos, () => actors.filter((actor) => actor.exit === undefined), (kill) =>
          emit({type: 'phase', message: `chaos: killed ${kill.actor} (SIGKILL) while ${kill.during}`}),
        )
      }
      ready = true
      await recordProcesses()
      const own = live.filter((entry) => entry.backend !== undefined && entry.backend !== backend).map((entry) => `${entry.name} on ${entry.backend}`)
      emit({type: 'phase', message: `spawned ${live.map((entry) => (entry.strategy === 'honest' ? entry.name : `${entry.name} (${entry.strategy})`)).join(', ')} (backend ${backend}${own.length ? `; ${own.join(', ')}` : ''})`})
    },

    runJobs() {
      return runScenarioJobs({
        scenario,
        accounts,
        roster,
        saved,
        connection,
        deployBlock,
        stopping: stopping.signal,
        emit,
        spawnSubmitter: (name, account, args, onJson) =>
          spawnActor({name, role: 'submitter', account: account.index, args: [...args, '--keys', keysDirOf(account), '--account', String(account.index), ...common()], logDirs, onJson}),
        supervise,
        jobFinished: statePaths ? (finished) => persist({finished: [...(record?.finished ?? []), finished]}) : undefined,
        submitterExited: () => {
          if (!anvilStopped) void recordProcesses().catch(() => {})
        },
      })
    },

    async report(submissions) {
      if (!connection || !before) throw new BaseError('devnet: report() before start()')
      const report = await buildReport({connection, accounts, roster, before, deployBlock, submissions, scenario, actors, dropouts, marketSamples: [...savedSamples(), ...(sampler?.samples ?? [])]})
      return {...report, crashes: crashes.map(crashReport)}
    },

    dropouts,
    crashes,

    get chaosKills() {
      return chaos?.kills ?? []
    },

    get connection() {
      return connection
    },

    get paused() {
      return paused !== undefined
    },

    async pause() {
      if (!connection) throw new BaseError('devnet: pause() before start()')
      if (paused || stopped) return
      const live = actors.filter((actor) => actor.exit === undefined).map((actor) => actor.pid)
      paused = await pauseDevnet({publicClient: connection.publicClient, pids: live, mining: mining!})
    },

    async resume() {
      const current = paused
      paused = undefined
      await current?.resume()
    },

    async stopActors() {
      stopped = true
      chaos?.stop()
      // A frozen actor would only act on its SIGTERM after the grace period's SIGKILL: thaw it first.
      await this.resume().catch(() => {})
      stopping.abort()
      await Promise.all(actors.map((actor) => actor.stop()))
      await sampler?.stop()
      await persist()
    },

    async stop() {
      if (anvilStopped) return
      anvilStopped = true
      await this.stopActors()
      await mining?.stop()
      await anvil.stop()
      // The chain is gone with anvil: a stale devnet.json would only send later commands to a dead port.
      // Logs, the blob store and report.json stay for reading.
      await recording.catch(() => {})
      // A devnet refused because another runs there must leave that one's files alone.
      if (!ownsStateDir) return
      for (const dir of statePaths ? [stateDir, statePaths.dir] : [stateDir]) {
        await rm(path.join(dir, 'processes.json'), {force: true})
        await rm(path.join(dir, 'devnet.json'), {force: true})
      }
    },
  }
}

/** The accounts derive from the scenario's actor counts: a saved run must name the same ones. */
function assertSameAccounts(saved: PersistedDevnet, accounts: readonly DevnetAccount[], file: string): void {
  const same = saved.accounts.length === accounts.length && saved.accounts.every((account, index) => account.address.toLowerCase() === accounts[index]?.address.toLowerCase())
  if (!same) throw new InvalidInputError(`--state: ${file} was written for other accounts: expected the scenario it was started with (${saved.scenario.source})`)
}

/**
 * The actors' poll interval on a chain of sub-second blocks: one block (at least 100 ms), where on whole-second
 * blocks they keep their own 500 ms. A GENSYN_POLL_MS the user set wins.
 */
function actorPollEnv(blockTimeSeconds: number): Record<string, string> | undefined {
  if (blockTimeSeconds >= 1 || process.env.GENSYN_POLL_MS) return undefined
  return {GENSYN_POLL_MS: String(Math.max(100, Math.round(blockTimeSeconds * 1000)))}
}

/** Where a devnet account's private-job secret and key files live (docs/privacy.md), beside the actors' state. */
function keysDirIn(actorStateDir: string, account: DevnetAccount): string {
  return path.join(actorStateDir, 'keys', `account-${account.index}`)
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
