import type {Dropout} from './devnetEvents.js'
import type {MarketHistory} from './readMarketHistory.js'
import type {ActorHandle} from './spawnActor.js'
import {describeExpectations} from './report/describeExpectations.js'
import {readReportContext, type ReportInputs} from './report/reportContext.js'
import {accountsSection, type AccountReport} from './report/sections/accounts.js'
import {conservationSection, type ConservationReport} from './report/sections/conservation.js'
import {disputesSection, type DisputeReport} from './report/sections/disputes.js'
import {failuresSection} from './report/sections/failures.js'
import {jackpotSection, type JackpotReport} from './report/sections/jackpot.js'
import {jobsSection, type JobReport} from './report/sections/jobs.js'
import {slashesSection, type SlashReport} from './report/sections/slashes.js'
import {tasksSection, type TaskReport} from './report/sections/tasks.js'
import {readRunHistory} from './report/readRunHistory.js'
import type {RunHistory} from './report/types.js'
import type {CrowdReport} from './crowd/types.js'

export type {AccountReport} from './report/sections/accounts.js'
export type {ConservationReport} from './report/sections/conservation.js'
export type {DisputeReport} from './report/sections/disputes.js'
export type {JackpotReport} from './report/sections/jackpot.js'
export type {JobReport} from './report/sections/jobs.js'
export type {SlashReport} from './report/sections/slashes.js'
export type {TaskReport} from './report/sections/tasks.js'

export type DevnetReport = {
  scenario: string
  /** The run's seed: `devnet up --scenario … --seed N` replays its keys, secrets and choices (absent in older reports). */
  seed?: number | undefined
  ok: boolean
  tasks: TaskReport[]
  /** Each scenario job as its submitter told it, with its wall time and any speed-up (absent in reports written before it existed). */
  jobs?: JobReport[]
  accounts: AccountReport[]
  disputes: DisputeReport[]
  slashes: SlashReport[]
  jackpot: JackpotReport
  /** The price over time, every offer listed and withdrawn, every training timeout (docs/market.md). */
  market: MarketHistory
  /** Dropout solvers the devnet killed (SIGKILL) after their first stored checkpoint. */
  dropouts: Dropout[]
  conservation: ConservationReport
  actors: {name: string; role: string; exitCode: number | null; signal: string | null}[]
  failures: string[]
  /** What the run was held to, in words (absent in reports written before it existed). */
  expectations?: string[]
  /** The run over time: balances, task phases, the detection matrix, gas per phase (docs/report.md). */
  history?: RunHistory
  /** Every actor process that died and what the supervisor did: restarted it after a delay, or gave up. */
  crashes?: CrashReport[]
  /** A crowd scenario's figures: lifecycles per minute, memory per actor, cheats caught (docs/scenarios.md, "Crowds"). */
  crowd?: CrowdReport
  /** Set when the run ended early (Ctrl-C, a crash, the chain dying): why, and what the report could read. */
  partial?: PartialRun
}

export type CrashReport = {actor: string; role: string; cause: 'crash' | 'chaos'; atSeconds: number; how: string; restartedAfterMs: number | null}

export type PartialRun = {
  reason: string
  /** Whether the figures come from the chain; false when it was gone, and only the actors' reports remain. */
  chainRead: boolean
  /** The last thing an actor said about each task, when the chain could not be read. */
  seenTasks?: {taskId: string; actor: string; event: string}[]
}

export type BuildReportOptions = ReportInputs & {
  /** The actor processes and how they ended (a live report has only names). */
  actors: readonly Pick<ActorHandle, 'name' | 'role' | 'exit'>[]
  dropouts?: readonly Dropout[]
}

/**
 * Reads the whole run back from the chain: every task's phases (gas from receipts, time from block
 * timestamps), every account's money, and the conservation check: wallets + stakes + escrow + gas fees
 * at the end equal what there was at the start, to the wei. Each section is one function (src/sim/report/sections/)
 * of the context read once (src/sim/report/reportContext.ts).
 */
export async function buildReport(options: BuildReportOptions): Promise<DevnetReport> {
  const ctx = await readReportContext(options)
  const {connection, accounts, before, after, scenario, nameOf, strategyOf} = ctx
  const tasks = tasksSection(ctx)
  const conservation = conservationSection(ctx)
  const disputes = await disputesSection(ctx)
  const failures = failuresSection(ctx, {tasks, disputes, conservation})
  const history = await readRunHistory({
    connection,
    deployBlock: options.deployBlock,
    balancesFrom: before.blockNumber,
    toBlock: after.blockNumber,
    transactions: ctx.transactions,
    store: connection.store,
    accounts: accounts.map((account) => ({address: account.address, name: nameOf(account.address), role: account.role, strategy: strategyOf(account.address)})),
  })
  return {
    scenario: scenario.name,
    seed: scenario.seed,
    ok: failures.length === 0,
    tasks,
    jobs: jobsSection(ctx),
    accounts: accountsSection(ctx),
    disputes,
    slashes: slashesSection(ctx),
    jackpot: jackpotSection(ctx),
    market: ctx.market,
    dropouts: [...(options.dropouts ?? [])],
    conservation,
    actors: options.actors.map((actor) => ({name: actor.name, role: actor.role, exitCode: actor.exit?.exitCode ?? null, signal: actor.exit?.signal ?? null})),
    failures,
    expectations: describeExpectations(scenario),
    history,
  }
}
