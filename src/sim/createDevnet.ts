import {createAnvil} from '../chain/anvil.js'
import {BaseError} from '../errors/base.js'
import {buildReport, type DevnetReport} from './buildReport.js'
import {actorRoster, type RosterEntry} from './actorRoster.js'
import {pauseFleet, resumeFleet, spawnFleet, stopFleet, superviseRunActor} from './actorFleet.js'
import {deployOrResume, prepareStateDirs, startChain, stopChain, writeRunConfig} from './chainInstance.js'
import {type DevnetAccount, scenarioAccounts} from './devnetAccounts.js'
import {persistRun, recordProcesses, recordProcessesWhileUp} from './devnetRecords.js'
import {actorPollEnv, commonActorArgs, devnetPaths, type DevnetRun, keysDirIn} from './devnetRun.js'
import {devnetStatePaths} from './devnetState.js'
import type {ResolvedScenario} from './scenario.js'
import {startMarketSampler} from './sampleMarket.js'
import {postScenarioProfiles} from './postScenarioProfiles.js'
import {type ActorHandle, spawnActor} from './spawnActor.js'
import type {DevnetEvent, Dropout, SubmissionOutcome} from './devnetEvents.js'
import {runScenarioJobs} from './runScenarioJobs.js'
import {crowdMembers} from './crowd/crowdMembers.js'
import {runCrowd} from './crowd/runCrowd.js'
import {crowdReport} from './crowd/crowdReport.js'
import type {ActorCrash} from './superviseActor.js'
import type {ChaosKill} from './chaosMonkey.js'
import {crashReport} from './report/crashReport.js'
import {type BackendChoice} from '../ml/backend/runtimeId.js'
import type {Connection} from '../protocol/connect.js'

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
 * nothing the protocol does; it only starts the parties and reads the chain afterwards. The run's state is one
 * DevnetRun object (src/sim/devnetRun.ts); each step below is a module function of it.
 */
export function createDevnet(options: DevnetOptions): Devnet {
  const run = newDevnetRun(options)
  return {
    get rpcUrl() {
      return run.anvil.rpcUrl
    },
    accounts: run.accounts,
    actors: run.actors,
    roster: run.roster,
    get resumed() {
      return run.saved !== undefined
    },
    start: () => startDevnet(run),
    runJobs: () => runJobs(run),
    report: (submissions) => reportOf(run, submissions),
    dropouts: run.dropouts,
    crashes: run.crashes,
    get chaosKills() {
      return run.chaos?.kills ?? []
    },
    get connection() {
      return run.connection
    },
    get paused() {
      return run.paused !== undefined
    },
    pause: () => pauseFleet(run),
    resume: () => resumeFleet(run),
    stopActors: () => stopFleet(run),
    stop: () => stopDevnet(run),
  }
}

/** The run's state before start(): its folders, accounts and roster, and an anvil that is created, not started. */
function newDevnetRun(options: DevnetOptions): DevnetRun {
  const {scenario} = options
  const statePaths = options.state === undefined ? undefined : devnetStatePaths(options.state)
  const own = scenarioAccounts(scenario.actors, scenario.seed)
  const crowd = scenario.crowd && crowdMembers(scenario.crowd, scenario.seed ?? 0, own.length)
  const accounts = [...own, ...(crowd?.accounts ?? [])]
  // The devnet handles Ctrl-C itself: actors stop first, the report reads the chain, and only then anvil stops.
  const anvil = createAnvil({
    port: options.port,
    // A crowd's accounts are funded with anvil_setBalance: hundreds of genesis accounts would slow anvil's start.
    accounts: own.length,
    balance: scenario.chain.accountBalance,
    handleSignals: false,
    state: statePaths?.chain,
    // anvil writes its dump when it exits on SIGTERM: give it time before the SIGKILL.
    stopTimeout: statePaths ? 30_000 : undefined,
    onUnexpectedExit: (reason) => options.onChainDied?.(reason),
  })
  return {
    scenario,
    backend: options.backend ?? scenario.backend,
    paths: devnetPaths(options.stateDir, options.runLogDir, statePaths),
    accounts,
    roster: actorRoster(scenario, own),
    crowd,
    crowdOutcome: undefined,
    anvil,
    emit: options.onEvent ?? (() => {}),
    actors: [],
    dropouts: [],
    crashes: [],
    stopping: new AbortController(),
    workerEnv: actorPollEnv(scenario.chain.blockTime),
    saved: undefined,
    record: undefined,
    connection: undefined,
    before: undefined,
    deployBlock: 0n,
    mining: undefined,
    sampler: undefined,
    chaos: undefined,
    paused: undefined,
    runStarted: performance.now(),
    writing: Promise.resolve(),
    recording: Promise.resolve(),
    ownsStateDir: false,
    ready: false,
    actorsStopped: false,
    chainStopped: false,
  }
}

/** Starts anvil, deploys (or resumes), funds and writes devnet.json, then spawns the long-running actors. */
async function startDevnet(run: DevnetRun): Promise<void> {
  const {scenario, roster, paths, emit, backend} = run
  await prepareStateDirs(run)
  const clients = await startChain(run)
  const contracts = await deployOrResume(run, clients, run.mining!)
  await writeRunConfig(run, clients.publicClient, contracts)
  emit({type: 'phase', message: `contracts: market ${contracts.market}, registry ${contracts.registry}`})

  if (!run.saved && scenario.profile) await postScenarioProfiles({scenario, profile: scenario.profile, roster, logDirs: paths.logDirs, stateDir: paths.actorStateDir, env: run.workerEnv, emit})
  run.sampler = startMarketSampler(run.connection!, Math.max(500, scenario.chain.blockTime * 1000))
  const live = spawnFleet(run)
  run.ready = true
  await recordProcesses(run)
  const own = live.filter((entry) => entry.backend !== undefined && entry.backend !== backend).map((entry) => `${entry.name} on ${entry.backend}`)
  if (live.length > 0) emit({type: 'phase', message: `spawned ${live.map((entry) => (entry.strategy === 'honest' ? entry.name : `${entry.name} (${entry.strategy})`)).join(', ')} (backend ${backend}${own.length ? `; ${own.join(', ')}` : ''})`})
}

/** The scenario's jobs and, beside them, its crowd: resolves once both are done. */
async function runJobs(run: DevnetRun): Promise<SubmissionOutcome[]> {
  const [submissions, crowdOutcome] = await Promise.all([runScenarioSubmitters(run), run.crowd ? runCrowd(run, run.crowd) : undefined])
  run.crowdOutcome = crowdOutcome
  return submissions
}

/** One submitter process per job (each submitter's jobs in order), supervised like the other actors. */
function runScenarioSubmitters(run: DevnetRun): Promise<SubmissionOutcome[]> {
  const {statePaths, logDirs, actorStateDir} = run.paths
  return runScenarioJobs({
    scenario: run.scenario,
    accounts: run.accounts,
    roster: run.roster,
    saved: run.saved,
    connection: run.connection,
    deployBlock: run.deployBlock,
    stopping: run.stopping.signal,
    emit: run.emit,
    spawnSubmitter: (name, account, args, onJson) =>
      // Private jobs' secrets and key files (docs/privacy.md): each submitter account its own, beside the actors' state.
      spawnActor({name, role: 'submitter', account: account.index, args: [...args, '--keys', keysDirIn(actorStateDir, account), '--account', String(account.index), ...commonActorArgs(run)], logDirs, onJson}),
    supervise: (start, more) => superviseRunActor(run, start, more),
    jobFinished: statePaths ? (finished) => persistRun(run, {finished: [...(run.record?.finished ?? []), finished]}) : undefined,
    submitterExited: () => recordProcessesWhileUp(run),
  })
}

async function reportOf(run: DevnetRun, submissions: SubmissionOutcome[]): Promise<DevnetReport> {
  const {connection, before} = run
  if (!connection || !before) throw new BaseError('devnet: report() before start()')
  const marketSamples = [...(run.saved?.marketSamples ?? []), ...(run.sampler?.samples ?? [])]
  const roster = [...run.roster, ...(run.crowd?.roster ?? [])]
  const report = await buildReport({connection, accounts: run.accounts, roster, before, deployBlock: run.deployBlock, submissions, scenario: run.scenario, actors: run.actors, dropouts: run.dropouts, marketSamples})
  if (!run.crowd) return {...report, crashes: run.crashes.map(crashReport)}
  const figures = crowdReport({report, members: run.crowd, outcome: run.crowdOutcome})
  const failures = [...report.failures, ...figures.failures]
  return {...report, ok: failures.length === 0, failures, crowd: figures, crashes: run.crashes.map(crashReport)}
}

/** Stops every actor, then anvil. Safe to call twice, and after a failed start. */
async function stopDevnet(run: DevnetRun): Promise<void> {
  if (run.chainStopped) return
  run.chainStopped = true
  await stopFleet(run)
  await stopChain(run)
}
