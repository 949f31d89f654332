import type {Address, Hex} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from '../protocol/connect.js'
import {listTasks} from '../protocol/listTasks.js'
import {type Task, type TaskStatus, verdictOf} from '../protocol/types.js'
import {type BalanceSnapshot, gasFeesPaid, takeBalanceSnapshot} from './balances.js'
import type {SubmissionOutcome} from './createDevnet.js'
import type {DevnetAccount} from './devnetAccounts.js'
import type {ResolvedScenario} from './scenario.js'
import type {ActorHandle} from './spawnActor.js'

const phaseEvents = ['TaskSubmitted', 'TaskClaimed', 'ProofCommitted', 'VerificationClaimed', 'VerdictPosted', 'TaskRejected', 'TaskReopened', 'TaskSettled', 'TaskExpired'] as const
type PhaseEvent = (typeof phaseEvents)[number]

export type TaskReport = {
  id: string
  status: TaskStatus
  verdict: 'accepted' | 'rejected' | 'none'
  testAccuracy: number | null
  submitter: Address
  solver: Address
  verifier: Address
  escrow: string
  /** How many times the task was taken: 1 + one per rejected proof (a rejection reopens the task). */
  attempts: number
  /** Every rejected proof: the cheater, what its stake lost, and where that went. */
  rejections: {solver: Address; slashed: string; verifierPaid: string; treasuryPaid: string}[]
  /** Gas of the transactions of each phase, over every attempt. */
  gasUsed: {submission: string; claim: string; commit: string; verification: string; settlement: string; total: string}
  /** Chain-clock seconds spent in each phase of the last attempt (block timestamps, so whole seconds). */
  seconds: {queued: number; training: number; verification: number; challenge: number; total: number}
  proofRoot: Hex
  /** Whether the task came from one of the scenario's jobs (only those are held to its expectations). */
  fromScenario: boolean
  expectations: {ok: boolean; failures: string[]}
}

export type AccountReport = {
  index: number
  role: DevnetAccount['role']
  /** Solvers only: the strategy it played (`honest`, or an adversary from docs/adversaries.md). */
  strategy?: string
  address: Address
  balanceBefore: string
  balanceAfter: string
  stakeBefore: string
  stakeAfter: string
}

export type DevnetReport = {
  scenario: string
  ok: boolean
  tasks: TaskReport[]
  accounts: AccountReport[]
  conservation: {
    ok: boolean
    totalBefore: string
    totalAfter: string
    gasFees: string
    registryBalanceMatchesStakes: boolean
    marketBalanceMatchesEscrow: boolean
  }
  actors: {name: string; role: string; exitCode: number | null; signal: string | null}[]
  failures: string[]
}

export type BuildReportOptions = {
  connection: Connection
  accounts: readonly DevnetAccount[]
  before: BalanceSnapshot
  deployBlock: bigint
  submissions: readonly SubmissionOutcome[]
  scenario: ResolvedScenario
  actors: readonly ActorHandle[]
}

/**
 * Reads the whole run back from the chain: every task's phases (gas from receipts, time from block
 * timestamps), every account's money, and the conservation check: wallets + stakes + escrow + gas fees
 * at the end equal what there was at the start, to the wei.
 */
export async function buildReport(options: BuildReportOptions): Promise<DevnetReport> {
  const {connection, accounts, before, scenario} = options
  const after = await takeBalanceSnapshot(connection, accounts)
  const tasks = await listTasks(connection)
  const events = await readPhaseEvents(connection, options.deployBlock)
  const accuracyByTask = new Map<string, number>()
  for (const submission of options.submissions) {
    const {taskId, testAccuracy} = submission.result ?? {}
    if (typeof taskId === 'string' && typeof testAccuracy === 'number') accuracyByTask.set(taskId, testAccuracy)
  }

  // Only the scenario's own jobs are judged; a task someone else submitted to the devnet is only reported.
  const scenarioTaskIds = new Set(options.submissions.flatMap((submission) => (typeof submission.result?.taskId === 'string' ? [submission.result.taskId] : [])))
  const taskReports = tasks.map((task) =>
    taskReport(task, events.get(task.id) ?? new Map(), accuracyByTask.get(task.id.toString()) ?? null, scenarioTaskIds.has(task.id.toString()) ? scenario : undefined),
  )

  const fees = await gasFeesPaid(connection, accounts.map((account) => account.address), before.blockNumber, after.blockNumber)
  const total = (snapshot: BalanceSnapshot) =>
    snapshot.accounts.reduce((sum, account) => sum + account.wallet, 0n) + snapshot.registryBalance + snapshot.marketBalance
  const totalBefore = total(before)
  const totalAfter = total(after)
  const conservation = {
    ok: totalBefore === totalAfter + fees && after.registryBalance === after.totalStaked && after.marketBalance === after.totalEscrow,
    totalBefore: totalBefore.toString(),
    totalAfter: totalAfter.toString(),
    gasFees: fees.toString(),
    registryBalanceMatchesStakes: after.registryBalance === after.totalStaked,
    marketBalanceMatchesEscrow: after.marketBalance === after.totalEscrow,
  }

  const solverAccounts = accounts.filter((account) => account.role === 'solver')
  const strategyOf = (account: DevnetAccount) => scenario.actors.solvers[solverAccounts.indexOf(account)]?.strategy ?? 'honest'

  const failures: string[] = []
  if (scenarioTaskIds.size < scenario.jobs.length) failures.push(`expected ${scenario.jobs.length} tasks from the scenario's jobs, found ${scenarioTaskIds.size}`)
  for (const report of taskReports) failures.push(...report.expectations.failures.map((failure) => `task ${report.id}: ${failure}`))
  // The protocol's own promise, whatever the scenario: no honest solver is slashed, no cheat is paid.
  const byAddress = new Map(solverAccounts.map((account) => [account.address.toLowerCase(), account]))
  for (const report of taskReports) {
    for (const rejection of report.rejections) {
      const solver = byAddress.get(rejection.solver.toLowerCase())
      if (solver && strategyOf(solver) === 'honest') failures.push(`task ${report.id}: honest solver ${solver.address} was rejected`)
    }
    const winner = byAddress.get(report.solver.toLowerCase())
    if (report.status === 'Settled' && report.verdict === 'accepted' && winner && strategyOf(winner) !== 'honest') {
      failures.push(`task ${report.id}: the ${strategyOf(winner)} cheater ${winner.address} was paid (its faked segments were not sampled)`)
    }
  }
  for (const submission of options.submissions) {
    if (submission.exit.exitCode !== 0) failures.push(`${submission.submitter} exited with ${submission.exit.exitCode ?? submission.exit.signal}: ${lastLine(submission.exit.stderrTail)}`)
  }
  if (!conservation.ok) failures.push('money is not conserved')

  return {
    scenario: scenario.name,
    ok: failures.length === 0,
    tasks: taskReports,
    accounts: accounts.map((account, index) => ({
      index: account.index,
      role: account.role,
      ...(account.role === 'solver' ? {strategy: strategyOf(account)} : {}),
      address: account.address,
      balanceBefore: before.accounts[index]!.wallet.toString(),
      balanceAfter: after.accounts[index]!.wallet.toString(),
      stakeBefore: before.accounts[index]!.stake.toString(),
      stakeAfter: after.accounts[index]!.stake.toString(),
    })),
    conservation,
    actors: options.actors.map((actor) => ({name: actor.name, role: actor.role, exitCode: actor.exit?.exitCode ?? null, signal: actor.exit?.signal ?? null})),
    failures,
  }
}

type PhaseLog = {gasUsed: bigint; timestamp: bigint; args: Record<string, unknown>}
/** Each phase event of a task, oldest first (a reopened task repeats claim, commit and verification). */
type TaskEvents = Map<PhaseEvent, PhaseLog[]>

async function readPhaseEvents(connection: Connection, fromBlock: bigint): Promise<Map<bigint, TaskEvents>> {
  const byTask = new Map<bigint, TaskEvents>()
  const timestamps = new Map<bigint, bigint>()
  for (const eventName of phaseEvents) {
    const logs = await connection.publicClient.getContractEvents({address: connection.contracts.market, abi: taskMarketAbi, eventName, fromBlock})
    for (const log of logs) {
      const id = (log.args as {id?: bigint}).id
      if (id === undefined || log.transactionHash === null || log.blockNumber === null) continue
      const receipt = await connection.publicClient.getTransactionReceipt({hash: log.transactionHash})
      if (!timestamps.has(log.blockNumber)) timestamps.set(log.blockNumber, (await connection.publicClient.getBlock({blockNumber: log.blockNumber})).timestamp)
      const events: TaskEvents = byTask.get(id) ?? new Map()
      const entry = {gasUsed: receipt.gasUsed, timestamp: timestamps.get(log.blockNumber)!, args: log.args as Record<string, unknown>}
      events.set(eventName, [...(events.get(eventName) ?? []), entry])
      byTask.set(id, events)
    }
  }
  return byTask
}

function taskReport(task: Task, events: TaskEvents, testAccuracy: number | null, scenario: ResolvedScenario | undefined): TaskReport {
  const gas = (...names: PhaseEvent[]) => names.flatMap((name) => events.get(name) ?? []).reduce((sum, entry) => sum + entry.gasUsed, 0n)
  const at = (name: PhaseEvent) => events.get(name)?.at(-1)?.timestamp
  const span = (from: PhaseEvent, to: PhaseEvent) => {
    const start = at(from)
    const end = at(to)
    return start === undefined || end === undefined ? 0 : Number(end - start)
  }
  const end: PhaseEvent = events.has('TaskSettled') ? 'TaskSettled' : 'TaskExpired'
  const gasUsed = {
    submission: gas('TaskSubmitted'),
    claim: gas('TaskClaimed'),
    commit: gas('ProofCommitted'),
    verification: gas('VerificationClaimed', 'VerdictPosted'),
    settlement: gas('TaskSettled', 'TaskRejected', 'TaskExpired'),
  }
  const verdict = verdictOf(task)
  const failures: string[] = []
  if (scenario) {
    if (task.status !== 'Settled') failures.push(`status ${task.status}, expected Settled`)
    if (verdict !== scenario.expect.verdict) failures.push(`verdict ${verdict}, expected ${scenario.expect.verdict}`)
    const minimum = scenario.expect.minTestAccuracy
    if (minimum !== undefined && scenario.expect.verdict === 'accepted' && (testAccuracy === null || testAccuracy < minimum)) {
      failures.push(`test accuracy ${testAccuracy ?? 'unknown'}, expected at least ${minimum}`)
    }
  }
  return {
    id: task.id.toString(),
    status: task.status,
    verdict,
    testAccuracy,
    submitter: task.submitter,
    solver: task.solver,
    verifier: task.verifier,
    escrow: task.escrow.toString(),
    gasUsed: {...mapValues(gasUsed, String), total: Object.values(gasUsed).reduce((a, b) => a + b, 0n).toString()},
    seconds: {
      queued: span(events.has('TaskReopened') ? 'TaskReopened' : 'TaskSubmitted', 'TaskClaimed'),
      training: span('TaskClaimed', 'ProofCommitted'),
      verification: span('ProofCommitted', 'VerdictPosted'),
      challenge: span('VerdictPosted', 'TaskSettled'),
      total: span('TaskSubmitted', end),
    },
    attempts: task.attempts + 1,
    rejections: (events.get('TaskRejected') ?? []).map(({args}) => ({
      solver: args.solver as Address,
      slashed: String(args.slashed),
      verifierPaid: String(args.verifierPaid),
      treasuryPaid: String(args.treasuryPaid),
    })),
    proofRoot: task.proofRoot,
    fromScenario: scenario !== undefined,
    expectations: {ok: failures.length === 0, failures},
  }
}

function mapValues<K extends string, V, W>(record: Record<K, V>, map: (value: V) => W): Record<K, W> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value as V)])) as Record<K, W>
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? ''
}
