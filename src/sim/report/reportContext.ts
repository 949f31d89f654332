import type {Address, Hex} from 'viem'

import type {Connection} from '../../protocol/connect.js'
import {listTasks} from '../../protocol/listTasks.js'
import type {Task} from '../../protocol/types.js'
import type {RosterEntry} from '../actorRoster.js'
import {type BalanceSnapshot, takeBalanceSnapshot} from '../balances.js'
import type {DevnetAccount} from '../devnetAccounts.js'
import type {SubmissionOutcome} from '../devnetEvents.js'
import {type MarketHistory, readMarketHistory} from '../readMarketHistory.js'
import type {MarketSample} from '../sampleMarket.js'
import type {ResolvedScenario} from '../scenario.js'
import {type MinedTransaction, scanTransactions} from '../scanTransactions.js'
import {readTaskLedgers, type TaskLedger} from '../../protocol/taskLedger.js'
import {actorNames} from './actorNames.js'
import {finalCheckpointHash} from './finalCheckpointHash.js'
import {type MoneyEvents, readMoneyEvents} from './readMoneyEvents.js'
import {readPhaseEvents, type TaskEvents} from './readPhaseEvents.js'
import {submittedTasks} from './submittedTasks.js'

/** What the report is read from (BuildReportOptions in src/sim/buildReport.ts, less what only the report copies). */
export type ReportInputs = {
  connection: Connection
  accounts: readonly DevnetAccount[]
  roster: readonly RosterEntry[]
  before: BalanceSnapshot
  deployBlock: bigint
  submissions: readonly SubmissionOutcome[]
  scenario: ResolvedScenario
  /** The devnet's samples of currentPrice() while it ran. */
  marketSamples?: readonly MarketSample[] | undefined
}

/** The run as the chain and the submitters tell it, read once: every section of the report is a function of it. */
export type ReportContext = ReportInputs & {
  after: BalanceSnapshot
  tasks: Task[]
  events: Map<bigint, TaskEvents>
  ledgers: Map<bigint, TaskLedger>
  /** The submitters' results: the tasks they posted, those that deliver a model, and the models' test accuracy. */
  scenarioTaskIds: Set<string>
  deliveringTaskIds: Set<string>
  accuracyByTask: Map<string, number>
  /** The actor's name in logs (`solver-1`, `submitter-2`, ...), or the address when it is none of the run's. */
  nameOf: (address: Address) => string
  /** The strategy a solver, verifier or whistleblower played; undefined for other accounts. */
  strategyOf: (address: Address) => string | undefined
  /** An actor's name to its lowercase address. */
  byName: Map<string, string>
  /** The training timeouts (ClaimTimedOut) of the account at this lowercase address. */
  timeoutsOf: (address: string) => MarketHistory['timeouts']
  market: MarketHistory
  /** By task id: the last checkpoint of its committed proof, when the store has it. */
  finalCheckpoints: Map<string, Hex | null>
  /** The transactions mined from the deployment to the `after` snapshot. */
  transactions: MinedTransaction[]
  money: MoneyEvents
}

/**
 * Reads the run back: the balances now, every task with its phase events and ledger, the market's history, each
 * proof's final checkpoint, the blocks' transactions and the money events, in that order.
 */
export async function readReportContext(inputs: ReportInputs): Promise<ReportContext> {
  const {connection, accounts, deployBlock} = inputs
  const after = await takeBalanceSnapshot(connection, accounts)
  const tasks = await listTasks(connection)
  const events = await readPhaseEvents(connection, deployBlock)
  // The submitters' results: every task they posted, and the delivered models' accuracy (a split job's model
  // is its last task's; its earlier tasks deliver none).
  const accuracyByTask = new Map<string, number>()
  const scenarioTaskIds = new Set<string>()
  const deliveringTaskIds = new Set<string>()
  for (const submission of inputs.submissions) {
    for (const submitted of submittedTasks(submission.result)) {
      scenarioTaskIds.add(submitted.taskId)
      if (submitted.testAccuracy !== undefined) accuracyByTask.set(submitted.taskId, submitted.testAccuracy)
      if (submitted.index === submitted.tasks - 1) deliveringTaskIds.add(submitted.taskId)
    }
  }
  const ledgers = await readTaskLedgers(connection, deployBlock)

  const names = actorNames(accounts, inputs.roster)
  const nameOf = (address: Address) => names.get(address.toLowerCase())?.name ?? address
  const strategyOf = (address: Address) => names.get(address.toLowerCase())?.strategy
  const market = await readMarketHistory(connection, deployBlock, inputs.marketSamples ?? [], nameOf)
  const finalCheckpoints = new Map<string, Hex | null>()
  for (const task of tasks) finalCheckpoints.set(task.id.toString(), await finalCheckpointHash(connection, task))

  // One pass over the run's blocks and receipts serves the fees here and the gas per phase of the history.
  const transactions = await scanTransactions(connection.publicClient, deployBlock, after.blockNumber)
  const money = await readMoneyEvents(connection, deployBlock)
  const byName = new Map(accounts.map((account) => [nameOf(account.address), account.address.toLowerCase()]))
  const timeoutsOf = (address: string) => market.timeouts.filter((timeout) => byName.get(timeout.solver) === address)
  return {
    ...inputs,
    after,
    tasks,
    events,
    ledgers,
    scenarioTaskIds,
    deliveringTaskIds,
    accuracyByTask,
    nameOf,
    strategyOf,
    byName,
    timeoutsOf,
    market,
    finalCheckpoints,
    transactions,
    money,
  }
}
