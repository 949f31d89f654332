import type {Address, Hex} from 'viem'

import {pinpointGameAbi, taskMarketAbi} from '../chain/generated/index.js'
import {finalCheckpointOf, type ProofManifest} from '../pol/index.js'
import type {Connection} from '../protocol/connect.js'
import {listTasks} from '../protocol/listTasks.js'
import {type Task, type TaskStatus, verdictOf} from '../protocol/types.js'
import {type BalanceSnapshot, gasFeesPaid, takeBalanceSnapshot} from './balances.js'
import type {Dropout, SubmissionOutcome} from './devnetEvents.js'
import {type MarketHistory, readMarketHistory} from './readMarketHistory.js'
import type {MarketSample} from './sampleMarket.js'
import {readTaskLedgers, type TaskLedger} from '../protocol/taskLedger.js'
import type {RosterEntry} from './actorRoster.js'
import type {DevnetAccount} from './devnetAccounts.js'
import type {ResolvedScenario} from './scenario.js'
import {type ActorHandle, exitReason} from './spawnActor.js'
import {describeExpectations} from './report/describeExpectations.js'
import {readRunHistory} from './report/readRunHistory.js'
import {scanTransactions} from './scanTransactions.js'
import type {RunHistory} from './report/types.js'
import {getLogsPaged} from '../chain/getLogsPaged.js'

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
  /** The split job's task before it ('0' for none), its work units and steps: the range and what was trained. */
  parentId: string
  workUnits: string
  maxSteps: string
  totalSteps: string
  /** Where the escrow went, to the wei (docs/market.md, section 2): `balanced` is refunded == escrow - payments. */
  ledger: {price: string; solverPaid: string; verifierPaid: string; tax: string; fromEscrow: string; refunded: string; balanced: boolean}
  /** Claims that timed out (the solver vanished; the task went back to the pool). */
  timeouts: number
  /** Every claim of the task: the first, one after each rejection and one after each timeout. */
  claims: number
  /** How many times the task was taken: 1 + one per rejected proof (a rejection reopens the task). */
  attempts: number
  /** Every rejected proof: the cheater, what its stake lost, and where that went. */
  rejections: {solver: Address; slashed: string; verifierPaid: string; treasuryPaid: string}[]
  /** Gas of the transactions of each phase, over every attempt. */
  gasUsed: {submission: string; claim: string; commit: string; verification: string; settlement: string; total: string}
  /** Chain-clock seconds spent in each phase of the last attempt (block timestamps, so whole seconds). */
  seconds: {queued: number; training: number; verification: number; challenge: number; total: number}
  proofRoot: Hex
  /** The last checkpoint of its committed proof (a split job's model is its last task's), when the store has it. */
  finalCheckpoint: Hex | null
  /** Whether the task came from one of the scenario's jobs (only those are held to its expectations). */
  fromScenario: boolean
  expectations: {ok: boolean; failures: string[]}
}

export type AccountReport = {
  index: number
  role: DevnetAccount['role']
  /** The actor's name in logs, e.g. `solver-1`, `lazy-verifier-1`, `griefer-1`, `submitter-1`, `treasury`. */
  name: string
  /** Solvers, verifiers and whistleblowers: the strategy it played (`honest`, or an adversary from docs/adversaries.md). */
  strategy?: string
  address: Address
  /** Wallet plus the market's credit to it (payments are pulled: a credit not yet withdrawn is its money). */
  balanceBefore: string
  balanceAfter: string
  stakeBefore: string
  stakeAfter: string
  /** Stake it lost to slashes (winner share, treasury and burn together). */
  slashed: string
  /** Winner shares it received from others' slashed stakes. */
  slashGains: string
  /** Jackpot shares it won for catching forced errors. */
  jackpotWon: string
  /** Fees it was paid for accepted work, after tax. */
  feesEarned: string
  /** Training timeouts (ClaimTimedOut) and the stake they cost it. */
  timeouts: number
  timeoutSlashed: string
}

/** One slash: whose locked stake, how much, and where it went (docs/disputes.md, "Money"). */
export type SlashReport = {taskId: string; account: string; winner: string | null; amount: string; toWinner: string; toTreasury: string; burned: string}

/** One dispute game: who played, how it ended, and what it cost. */
export type DisputeReport = {
  id: string
  taskId: string
  /** `challenge`: a whistleblower against the solver; `rejection`: the solver against its verifier. */
  kind: 'challenge' | 'rejection'
  prover: string
  challenger: string
  outcome: string
  /** Timeout, Arbitration, Committee or Void. */
  reason: string
  rounds: number
  /** Where the pinpoint landed: the disputed step, and the disputed trace element (0 when not narrowed). */
  step: number
  element: number
  /** Committee question (Graph, StateAssembly, Operator) or None; the kernel when arbitrated on chain. */
  question: string
  kernel: string | null
  committee: string[]
  /** Gas of the challenge (or rejection dispute), the settle that opened the game, and every game move. */
  gasUsed: string
  /** Chain-clock seconds from the challenge to the game's resolution. */
  seconds: number
}

export type JackpotReport = {before: string; after: string; funded: string; taxIn: string; paidOut: string; payouts: {taskId: string; catcher: string; amount: string}[]}

export type DevnetReport = {
  scenario: string
  /** The run's seed: `devnet up --scenario … --seed N` replays its keys, secrets and choices (absent in older reports). */
  seed?: number | undefined
  ok: boolean
  tasks: TaskReport[]
  accounts: AccountReport[]
  disputes: DisputeReport[]
  slashes: SlashReport[]
  jackpot: JackpotReport
  /** The price over time, every offer listed and withdrawn, every training timeout (docs/market.md). */
  market: MarketHistory
  /** Dropout solvers the devnet killed (SIGKILL) after their first stored checkpoint. */
  dropouts: Dropout[]
  conservation: {
    ok: boolean
    totalBefore: string
    totalAfter: string
    gasFees: string
    /** Wei burned by slashes (still in the registry, out of every account for ever). */
    burned: string
    /** registry balance == totalStaked + totalBurned */
    registryBalanceMatchesStakes: boolean
    /** market balance == totalEscrow + jackpot + totalCredit */
    marketBalanceMatchesEscrow: boolean
  }
  actors: {name: string; role: string; exitCode: number | null; signal: string | null}[]
  failures: string[]
  /** What the run was held to, in words (absent in reports written before it existed). */
  expectations?: string[]
  /** The run over time: balances, task phases, the detection matrix, gas per phase (docs/report.md). */
  history?: RunHistory
  /** Every actor process that died and what the supervisor did: restarted it after a delay, or gave up. */
  crashes?: CrashReport[]
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

export type BuildReportOptions = {
  connection: Connection
  accounts: readonly DevnetAccount[]
  roster: readonly RosterEntry[]
  before: BalanceSnapshot
  deployBlock: bigint
  submissions: readonly SubmissionOutcome[]
  scenario: ResolvedScenario
  /** The actor processes and how they ended (a live report has only names). */
  actors: readonly Pick<ActorHandle, 'name' | 'role' | 'exit'>[]
  dropouts?: readonly Dropout[]
  /** The devnet's samples of currentPrice() while it ran. */
  marketSamples?: readonly MarketSample[]
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
  // The submitters' results: every task they posted, and the delivered models' accuracy (a split job's model
  // is its last task's; its earlier tasks deliver none).
  const accuracyByTask = new Map<string, number>()
  const scenarioTaskIds = new Set<string>()
  const deliveringTaskIds = new Set<string>()
  for (const submission of options.submissions) {
    for (const submitted of submittedTasks(submission.result)) {
      scenarioTaskIds.add(submitted.taskId)
      if (submitted.testAccuracy !== undefined) accuracyByTask.set(submitted.taskId, submitted.testAccuracy)
      if (submitted.index === submitted.tasks - 1) deliveringTaskIds.add(submitted.taskId)
    }
  }
  const ledgers = await readTaskLedgers(connection, options.deployBlock)

  const names = actorNames(accounts, options.roster)
  const nameOf = (address: Address) => names.get(address.toLowerCase())?.name ?? address
  const strategyOf = (address: Address) => names.get(address.toLowerCase())?.strategy
  const market = await readMarketHistory(connection, options.deployBlock, options.marketSamples ?? [], nameOf)
  const taskReports = tasks.map((task) => {
    const id = task.id.toString()
    const judged = scenarioTaskIds.has(id) ? {scenario, delivers: deliveringTaskIds.has(id)} : undefined
    return taskReport(task, events.get(task.id) ?? new Map(), accuracyByTask.get(id) ?? null, judged, ledgers.get(task.id), market.timeouts.filter((timeout) => timeout.taskId === id).length)
  })
  for (const report of taskReports) report.finalCheckpoint = await finalCheckpointHash(connection, tasks.find((task) => task.id.toString() === report.id)!)

  // One pass over the run's blocks and receipts serves the fees here and the gas per phase of the history.
  const transactions = await scanTransactions(connection.publicClient, options.deployBlock, after.blockNumber)
  const fees = gasFeesPaid(transactions, accounts.map((account) => account.address), before.blockNumber)
  const total = (snapshot: BalanceSnapshot) =>
    snapshot.accounts.reduce((sum, account) => sum + account.wallet, 0n) + snapshot.registryBalance + snapshot.marketBalance
  const totalBefore = total(before)
  const totalAfter = total(after)
  const registryOk = after.registryBalance === after.totalStaked + after.totalBurned
  const marketOk = after.marketBalance === after.totalEscrow + after.jackpot + after.totalCredit
  const conservation = {
    ok: totalBefore === totalAfter + fees && registryOk && marketOk,
    totalBefore: totalBefore.toString(),
    totalAfter: totalAfter.toString(),
    gasFees: fees.toString(),
    burned: after.totalBurned.toString(),
    registryBalanceMatchesStakes: registryOk,
    marketBalanceMatchesEscrow: marketOk,
  }

  const money = await readMoneyEvents(connection, options.deployBlock)
  const disputes = await readDisputes(connection, options.deployBlock, nameOf)
  const perAccount = (pick: (address: string) => bigint) => (account: DevnetAccount) => pick(account.address.toLowerCase()).toString()
  const sumBy = <T>(items: readonly T[], key: (item: T) => string | null, amount: (item: T) => bigint) => (address: string) =>
    items.reduce((sum, item) => (key(item)?.toLowerCase() === address ? sum + amount(item) : sum), 0n)
  const slashedOf = sumBy(money.slashes, (slash) => slash.account, (slash) => slash.amount)
  const gainsOf = sumBy(money.slashes, (slash) => slash.winner, (slash) => slash.toWinner)
  const jackpotOf = sumBy(money.payouts, (payout) => payout.catcher, (payout) => payout.amount)
  const feesOf = sumBy(money.fees, (fee) => fee.to, (fee) => fee.amount)

  const byName = new Map(accounts.map((account) => [nameOf(account.address), account.address.toLowerCase()]))
  const failures: string[] = []
  const expectedTasks = scenario.jobs.reduce((sum, job) => sum + job.count, 0)
  if (scenario.expect.allSettled && scenarioTaskIds.size < expectedTasks) failures.push(`expected at least ${expectedTasks} tasks from the scenario's jobs, found ${scenarioTaskIds.size}`)
  // docs/market.md, section 2: every wei of every escrow is accounted for, whatever the scenario.
  for (const report of taskReports) {
    if (!['Settled', 'Expired'].includes(report.status)) continue
    const {ledger} = report
    if (!ledger.balanced) {
      const payments = BigInt(ledger.solverPaid) + BigInt(ledger.verifierPaid) + BigInt(ledger.tax) + BigInt(ledger.fromEscrow)
      failures.push(`task ${report.id}: refunded ${ledger.refunded} wei, expected escrow ${report.escrow} - payments ${payments} = ${BigInt(report.escrow) - payments}`)
    }
  }
  const timeoutsOf = (address: string) => market.timeouts.filter((timeout) => byName.get(timeout.solver) === address)
  for (const name of scenario.expect.timedOut) {
    const address = byName.get(name)
    if (address === undefined) failures.push(`expect.timedOut: no actor named ${name}`)
    else if (timeoutsOf(address).length === 0) failures.push(`${name} never timed out`)
  }
  for (const timeout of market.timeouts) {
    const address = byName.get(timeout.solver)
    if (address !== undefined && strategyOf(address as Address) === 'honest') failures.push(`task ${timeout.taskId}: honest ${timeout.solver} missed its training deadline`)
  }
  if (scenario.expect.priceRises && !market.shock?.rose) {
    failures.push(market.shock ? `the price did not rise after ${market.shock.solver} left at ${market.shock.seconds} s (${market.shock.price} wei per work unit)` : 'expect.priceRises: no solver ever withdrew its offer')
  }
  for (const report of taskReports) failures.push(...report.expectations.failures.map((failure) => `task ${report.id}: ${failure}`))
  // The protocol's own promises, whatever the scenario: no honest party is slashed, no cheat is paid.
  for (const report of taskReports) {
    for (const rejection of report.rejections) {
      if (strategyOf(rejection.solver) === 'honest') failures.push(`task ${report.id}: honest solver ${nameOf(rejection.solver)} was rejected`)
    }
    const strategy = strategyOf(report.solver)
    const mayPass = scenario.expect.paidCheaters.includes(nameOf(report.solver))
    if (report.status === 'Settled' && report.verdict === 'accepted' && strategy !== undefined && strategy !== 'honest' && !mayPass) {
      failures.push(`task ${report.id}: the ${strategy} cheater ${nameOf(report.solver)} was paid (its faked segments were not sampled)`)
    }
  }
  for (const slash of money.slashes) {
    if (strategyOf(slash.account) === 'honest') failures.push(`task ${slash.taskId}: honest ${nameOf(slash.account)} was slashed ${slash.amount} wei`)
  }
  for (const name of scenario.expect.slashed) {
    const address = byName.get(name)
    if (address === undefined) failures.push(`expect.slashed: no actor named ${name}`)
    else if (slashedOf(address) === 0n) failures.push(`${name} was not slashed`)
  }
  for (const name of scenario.expect.jackpotPaid) {
    const address = byName.get(name)
    if (address === undefined) failures.push(`expect.jackpotPaid: no actor named ${name}`)
    else if (jackpotOf(address) === 0n) failures.push(`${name} was not paid from the jackpot`)
  }
  if (disputes.length < scenario.expect.disputes.min) failures.push(`expected at least ${scenario.expect.disputes.min} disputes, found ${disputes.length}`)
  const allowed = scenario.expect.disputes.outcomes
  for (const dispute of disputes) {
    if (dispute.outcome === 'None') failures.push(`dispute ${dispute.id} (task ${dispute.taskId}) never ended`)
    else if (allowed && !allowed.includes(dispute.outcome as (typeof allowed)[number])) failures.push(`dispute ${dispute.id} ended ${dispute.outcome}, expected one of ${allowed.join(', ')}`)
  }
  for (const submission of options.submissions) {
    if (submission.exit.exitCode !== 0 && !submission.stoppedByDevnet) failures.push(`${submission.submitter} exited with ${submission.exit.exitCode ?? submission.exit.signal}: ${exitReason(submission.exit)}`)
  }
  if (!conservation.ok) failures.push('money is not conserved')

  const history = await readRunHistory({
    connection,
    deployBlock: options.deployBlock,
    balancesFrom: before.blockNumber,
    toBlock: after.blockNumber,
    transactions,
    store: connection.store,
    accounts: accounts.map((account) => ({address: account.address, name: nameOf(account.address), role: account.role, strategy: strategyOf(account.address)})),
  })

  return {
    scenario: scenario.name,
    seed: scenario.seed,
    ok: failures.length === 0,
    tasks: taskReports,
    accounts: accounts.map((account, index) => {
      const strategy = strategyOf(account.address)
      return {
        index: account.index,
        role: account.role,
        name: nameOf(account.address),
        ...(strategy === undefined ? {} : {strategy}),
        address: account.address,
        balanceBefore: (before.accounts[index]!.wallet + before.accounts[index]!.credit).toString(),
        balanceAfter: (after.accounts[index]!.wallet + after.accounts[index]!.credit).toString(),
        stakeBefore: before.accounts[index]!.stake.toString(),
        stakeAfter: after.accounts[index]!.stake.toString(),
        slashed: perAccount(slashedOf)(account),
        slashGains: perAccount(gainsOf)(account),
        jackpotWon: perAccount(jackpotOf)(account),
        feesEarned: perAccount(feesOf)(account),
        timeouts: timeoutsOf(account.address.toLowerCase()).length,
        timeoutSlashed: timeoutsOf(account.address.toLowerCase())
          .reduce((sum, timeout) => sum + BigInt(timeout.slashed), 0n)
          .toString(),
      }
    }),
    disputes,
    slashes: money.slashes.map((slash) => ({
      taskId: slash.taskId,
      account: nameOf(slash.account),
      winner: slash.winner === null ? null : nameOf(slash.winner),
      amount: slash.amount.toString(),
      toWinner: slash.toWinner.toString(),
      toTreasury: slash.toTreasury.toString(),
      burned: slash.burned.toString(),
    })),
    jackpot: {
      before: before.jackpot.toString(),
      after: after.jackpot.toString(),
      funded: money.funded.toString(),
      taxIn: money.taxIn.toString(),
      paidOut: money.payouts.reduce((sum, payout) => sum + payout.amount, 0n).toString(),
      payouts: money.payouts.map((payout) => ({taskId: payout.taskId, catcher: nameOf(payout.catcher), amount: payout.amount.toString()})),
    },
    market,
    dropouts: [...(options.dropouts ?? [])],
    conservation,
    actors: options.actors.map((actor) => ({name: actor.name, role: actor.role, exitCode: actor.exit?.exitCode ?? null, signal: actor.exit?.signal ?? null})),
    failures,
    expectations: describeExpectations(scenario),
    history,
  }
}

type PhaseLog = {gasUsed: bigint; timestamp: bigint; args: Record<string, unknown>}
/** Each phase event of a task, oldest first (a reopened task repeats claim, commit and verification). */
type TaskEvents = Map<PhaseEvent, PhaseLog[]>

async function readPhaseEvents(connection: Connection, fromBlock: bigint): Promise<Map<bigint, TaskEvents>> {
  const byTask = new Map<bigint, TaskEvents>()
  const timestamps = new Map<bigint, bigint>()
  for (const eventName of phaseEvents) {
    const logs = await getLogsPaged(connection.publicClient, {fromBlock}, (range) => connection.publicClient.getContractEvents({address: connection.contracts.market, abi: taskMarketAbi, eventName, ...range}))
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

function taskReport(
  task: Task,
  events: TaskEvents,
  testAccuracy: number | null,
  judged: {scenario: ResolvedScenario; delivers: boolean} | undefined,
  ledger: TaskLedger | undefined,
  timeouts: number,
): TaskReport {
  const scenario = judged?.scenario
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
    // A run stopped by durationSeconds may end with tasks still open; those are held to nothing but conservation.
    const judgedNow = scenario.expect.allSettled || task.status === 'Settled'
    if (task.status !== 'Settled' && scenario.expect.allSettled) failures.push(`status ${task.status}, expected Settled`)
    if (judgedNow && verdict !== scenario.expect.verdict) failures.push(`verdict ${verdict}, expected ${scenario.expect.verdict}`)
    const minimum = scenario.expect.minTestAccuracy
    if (minimum !== undefined && judged?.delivers && scenario.expect.verdict === 'accepted' && (testAccuracy === null || testAccuracy < minimum)) {
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
    escrow: (ledger?.escrow ?? task.escrow).toString(),
    parentId: task.parentId.toString(),
    workUnits: task.workUnits.toString(),
    maxSteps: task.maxSteps.toString(),
    totalSteps: task.totalSteps.toString(),
    ledger: {
      price: (ledger?.price ?? task.price).toString(),
      solverPaid: String(ledger?.solverPaid ?? 0n),
      verifierPaid: String(ledger?.verifierPaid ?? 0n),
      tax: String(ledger?.tax ?? 0n),
      fromEscrow: String(ledger?.fromEscrow ?? 0n),
      refunded: String(ledger?.refunded ?? 0n),
      balanced: ledger?.balanced ?? false,
    },
    timeouts,
    claims: events.get('TaskClaimed')?.length ?? 0,
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
    finalCheckpoint: null,
    fromScenario: scenario !== undefined,
    expectations: {ok: failures.length === 0, failures},
  }
}

/** Every account's name and strategy: the roster's actors, then submitters and the treasury. */
function actorNames(accounts: readonly DevnetAccount[], roster: readonly RosterEntry[]): Map<string, {name: string; strategy?: string}> {
  const names = new Map<string, {name: string; strategy?: string}>()
  for (const entry of roster) names.set(entry.account.address.toLowerCase(), {name: entry.name, strategy: entry.strategy})
  let submitters = 0
  for (const account of accounts) {
    if (names.has(account.address.toLowerCase())) continue
    names.set(account.address.toLowerCase(), {name: account.role === 'submitter' ? `submitter-${++submitters}` : account.role})
  }
  return names
}

type MoneyEvents = {
  slashes: {taskId: string; account: Address; winner: Address | null; amount: bigint; toWinner: bigint; toTreasury: bigint; burned: bigint}[]
  payouts: {taskId: string; catcher: Address; amount: bigint}[]
  fees: {to: Address; amount: bigint}[]
  funded: bigint
  taxIn: bigint
}

const zeroAddress = '0x0000000000000000000000000000000000000000'

/** Slashes, jackpot payouts, fees and taxes, from the market's events. */
async function readMoneyEvents(connection: Connection, fromBlock: bigint): Promise<MoneyEvents> {
  const market = {address: connection.contracts.market, abi: taskMarketAbi, fromBlock} as const
  const client = connection.publicClient
  const [slashed, revealed, funded, settled, claimed, verifying] = await Promise.all([
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'StakeSlashed', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'ForcedErrorRevealed', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'JackpotFunded', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'TaskSettled', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'TaskClaimed', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'VerificationClaimed', ...range})),
  ])
  // TaskSettled names no payee: the solver and verifier holding the task when it settled are the last to claim it.
  const lastBefore = (logs: readonly {args: {id?: bigint}; blockNumber: bigint | null; logIndex: number | null}[], id: bigint, block: bigint) =>
    logs.filter((log) => log.args.id === id && (log.blockNumber ?? 0n) <= block).at(-1)
  const fees: MoneyEvents['fees'] = []
  let taxIn = 0n
  for (const log of settled) {
    const {id, solverPaid, verifierPaid, tax} = log.args
    if (id === undefined || log.blockNumber === null) continue
    taxIn += tax ?? 0n
    const solver = (lastBefore(claimed, id, log.blockNumber)?.args as {solver?: Address} | undefined)?.solver
    const verifier = (lastBefore(verifying, id, log.blockNumber)?.args as {verifier?: Address} | undefined)?.verifier
    if (solver) fees.push({to: solver, amount: solverPaid ?? 0n})
    if (verifier) fees.push({to: verifier, amount: verifierPaid ?? 0n})
  }
  return {
    slashes: slashed.map(({args}) => ({
      taskId: String(args.id),
      account: args.account!,
      winner: args.winner === undefined || args.winner === zeroAddress ? null : args.winner,
      amount: args.amount ?? 0n,
      toWinner: args.toWinner ?? 0n,
      toTreasury: args.toTreasury ?? 0n,
      burned: args.burned ?? 0n,
    })),
    payouts: revealed.flatMap(({args}) => (args.catchers ?? []).map((catcher, index) => ({taskId: String(args.id), catcher, amount: args.paidEach?.[index] ?? 0n}))),
    fees,
    funded: funded.reduce((sum, log) => sum + (log.args.amount ?? 0n), 0n),
    taxIn,
  }
}

const outcomeNames = ['None', 'ProverWon', 'ChallengerWon', 'BothWrong', 'Void'] as const
const questionNames = ['None', 'Graph', 'StateAssembly', 'Operator'] as const
const resolutionNames = ['Timeout', 'Arbitration', 'Committee', 'Void'] as const

/** Every dispute game the market started, read back from the game. */
async function readDisputes(connection: Connection, fromBlock: bigint, nameOf: (address: Address) => string): Promise<DisputeReport[]> {
  const client = connection.publicClient
  const started = await getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({address: connection.contracts.market, abi: taskMarketAbi, eventName: 'DisputeStarted', ...range}))
  if (started.length === 0) return []
  const game = connection.contracts.game ?? (await client.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'game'}))
  const [gameLogs, challenges, rejections] = await Promise.all([
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({address: game, abi: pinpointGameAbi, ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({address: connection.contracts.market, abi: taskMarketAbi, eventName: 'ChallengeQueued', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({address: connection.contracts.market, abi: taskMarketAbi, eventName: 'RejectionDisputed', ...range})),
  ])
  const gasOf = async (hashes: Iterable<Hex>) => {
    let gas = 0n
    for (const hash of new Set(hashes)) gas += (await client.getTransactionReceipt({hash})).gasUsed
    return gas
  }
  const timeOf = async (blockNumber: bigint) => (await client.getBlock({blockNumber})).timestamp
  const reports: DisputeReport[] = []
  for (const log of started) {
    const {id: taskId, disputeId, prover, challenger} = log.args
    if (taskId === undefined || disputeId === undefined || prover === undefined || challenger === undefined || log.blockNumber === null) continue
    const dispute = await client.readContract({address: game, abi: pinpointGameAbi, functionName: 'getDispute', args: [disputeId]})
    const own = gameLogs.filter((entry) => (entry.args as {id?: bigint}).id === disputeId)
    const resolved = own.find((entry) => entry.eventName === 'DisputeResolved')
    const arbitrated = own.find((entry) => entry.eventName === 'Arbitrated')
    const drawn = own.find((entry) => entry.eventName === 'CommitteeDrawn')
    // The challenge that led to this game: the challenger's own (a whistleblower) or the solver's rejection dispute.
    const opening = [...challenges.filter((entry) => entry.args.id === taskId && entry.args.whistleblower?.toLowerCase() === challenger.toLowerCase()), ...rejections.filter((entry) => entry.args.id === taskId && entry.args.solver?.toLowerCase() === prover.toLowerCase())]
      .filter((entry) => entry.blockNumber !== null && entry.blockNumber <= log.blockNumber!)
      .at(-1)
    const kind = opening?.eventName === 'RejectionDisputed' ? 'rejection' : 'challenge'
    const hashes = [log.transactionHash, ...own.map((entry) => entry.transactionHash), ...(opening ? [opening.transactionHash] : [])].filter((hash): hash is Hex => hash !== null)
    const startBlock = opening?.blockNumber ?? log.blockNumber
    const seconds = resolved?.blockNumber == null ? 0 : Number((await timeOf(resolved.blockNumber)) - (await timeOf(startBlock)))
    const resolvedArgs = (resolved?.args ?? {}) as {rounds?: number; reason?: number}
    reports.push({
      id: disputeId.toString(),
      taskId: taskId.toString(),
      kind,
      prover: nameOf(prover),
      challenger: nameOf(challenger),
      outcome: outcomeNames[dispute.outcome] ?? String(dispute.outcome),
      reason: resolvedArgs.reason === undefined ? 'unresolved' : (resolutionNames[resolvedArgs.reason] ?? String(resolvedArgs.reason)),
      rounds: resolvedArgs.rounds ?? dispute.rounds,
      step: Number(dispute.step),
      element: dispute.element,
      question: questionNames[dispute.question] ?? String(dispute.question),
      kernel: (arbitrated?.args as {kernel?: string} | undefined)?.kernel ?? null,
      committee: ((drawn?.args as {members?: readonly Address[]} | undefined)?.members ?? []).map(nameOf),
      gasUsed: (await gasOf(hashes)).toString(),
      seconds,
    })
  }
  return reports
}

function mapValues<K extends string, V, W>(record: Record<K, V>, map: (value: V) => W): Record<K, W> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value as V)])) as Record<K, W>
}

/** The last checkpoint of the task's committed proof, read from the blob store (null when it has none). */
async function finalCheckpointHash(connection: Connection, task: Task): Promise<Hex | null> {
  if (/^0x0{64}$/.test(task.manifestHash)) return null
  try {
    return finalCheckpointOf(await connection.store.getJson<ProofManifest>(task.manifestHash)).hash
  } catch {
    return null
  }
}

type SubmittedTaskSummary = {taskId: string; index: number; tasks: number; testAccuracy?: number}

/** The tasks a submitter's JSON result lists (src/actors/submitJob.ts). */
function submittedTasks(result: Record<string, unknown> | undefined): SubmittedTaskSummary[] {
  const tasks = Array.isArray(result?.tasks) ? (result.tasks as Record<string, unknown>[]) : []
  return tasks.flatMap((task) =>
    typeof task.taskId === 'string'
      ? [{taskId: task.taskId, index: Number(task.index ?? 0), tasks: Number(task.tasks ?? 1), ...(typeof task.testAccuracy === 'number' ? {testAccuracy: task.testAccuracy} : {})}]
      : [],
  )
}
