import type {Address} from 'viem'

import type {RosterEntry} from '../../sim/actorRoster.js'
import type {DevnetEvent} from '../../sim/createDevnet.js'
import type {DevnetAccount} from '../../sim/devnetAccounts.js'
import type {TaskStatus} from '../../protocol/types.js'
import {describeActorEvent} from './describeActorEvent.js'
import type {FeedKind} from './feedKind.js'
import {describeCrash} from '../../sim/superviseActor.js'
import type {SweepProgress} from './sweepProgress.js'
import {applyTrainingEvent, type LiveCurve} from './trainingCurves.js'

export type ActorRole = 'submitter' | 'solver' | 'verifier' | 'whistleblower'

/** A solver's training range, from its `progress` and `checkpoint` events (absolute steps of the job). */
export type TrainingProgress = {taskId: string; step: number; from: number; steps: number; checkpoint: number | undefined}

export type ActorRow = {
  name: string
  role: ActorRole
  strategy: string
  address: Address | undefined
  /** What it is doing now, in a few words. */
  activity: string
  progress: TrainingProgress | undefined
  /** The task its activity is about, so the activity can say when the chain has settled it. */
  taskId: string | undefined
  /** Wallet and stake (free + locked + unbonding), in wei, from the last chain poll. */
  balance: bigint | undefined
  stake: bigint | undefined
  state: 'running' | 'exited' | 'killed'
  /** How often the devnet has restarted its process after a crash (or a chaos kill). */
  restarts: number
}

export type TaskRow = {id: string; status: TaskStatus; solver: string | undefined; verifier: string | undefined; attempts: number}

export type FeedEntry = {block: bigint | undefined; actor: string; kind: FeedKind; text: string}

export type DashboardMode = 'starting' | 'running' | 'pausing' | 'paused' | 'resuming' | 'stopping'

export type DashboardState = {
  scenario: string
  stateDir: string
  rpcUrl: string | undefined
  head: {number: bigint; timestamp: bigint} | undefined
  /** The devnet's last phase message (starting anvil, deploying, ...). */
  phase: string
  actors: ActorRow[]
  tasks: TaskRow[]
  /** Oldest first; bounded, the layout shows the newest that fit. */
  feed: FeedEntry[]
  mode: DashboardMode
  jackpot: bigint | undefined
  /** Lower-cased address -> actor name, so chain logs name the actors. */
  names: Map<string, string>
  /** The loss per checkpoint of each task the solvers train, as they report it (oldest first, bounded). */
  curves: LiveCurve[]
  /** In a sweep: its cells' progress, and which cell's devnet the rest of the state is (`devnet sweep`). */
  sweep: {progress: SweepProgress; following: string | undefined} | undefined
}

/** A chain event the poller decoded, already reduced to what the feed shows. */
export type ChainFeedEvent = {block: bigint; kind: FeedKind; actor: string; text: string}

export type ChainView = {
  head: {number: bigint; timestamp: bigint}
  balances: {address: Address; wallet: bigint; stake: bigint}[]
  tasks: {id: bigint; status: TaskStatus; solver: Address; verifier: Address; attempts: number}[]
  jackpot: bigint | undefined
  events: ChainFeedEvent[]
}

const feedLimit = 500
const zeroAddress = '0x0000000000000000000000000000000000000000'

export function createDashboardState(options: {scenario: string; stateDir: string}): DashboardState {
  return {
    scenario: options.scenario,
    stateDir: options.stateDir,
    rpcUrl: undefined,
    head: undefined,
    phase: 'starting',
    actors: [],
    tasks: [],
    feed: [],
    mode: 'starting',
    jackpot: undefined,
    names: new Map(),
    curves: [],
    sweep: undefined,
  }
}

/**
 * Names every long-running actor and submitter account once the devnet is up, in roster order, keeping what
 * events already told about them.
 */
export function attachRoster(state: DashboardState, devnet: {rpcUrl: string; roster: readonly RosterEntry[]; accounts: readonly DevnetAccount[]}): void {
  state.rpcUrl = devnet.rpcUrl
  if (state.mode === 'starting') state.mode = 'running'
  const submitters = devnet.accounts.filter((account) => account.role === 'submitter')
  const entries = [
    ...submitters.map((account, position) => ({name: `submitter-${position + 1}`, role: 'submitter' as const, strategy: '-', address: account.address})),
    ...devnet.roster.map((entry) => ({name: entry.name, role: entry.role, strategy: entry.strategy, address: entry.account.address})),
  ]
  const known = new Map(state.actors.map((row) => [row.name, row]))
  state.actors = entries.map((entry) => {
    state.names.set(entry.address.toLowerCase(), entry.name)
    const row = known.get(entry.name) ?? newRow(entry.name, entry.role)
    known.delete(entry.name)
    return {...row, role: entry.role, strategy: entry.strategy, address: entry.address}
  })
  state.actors.push(...known.values())
  const treasury = devnet.accounts.find((account) => account.role === 'treasury')
  if (treasury) state.names.set(treasury.address.toLowerCase(), 'treasury')
}

/** Folds one devnet event into the view: actor activity, training progress, and the feed. */
export function applyDevnetEvent(state: DashboardState, event: DevnetEvent): void {
  if (event.type === 'phase') {
    state.phase = event.message
    const submitting = /^(submitter-\d+)(?:-job-\d+)?: (submitting .*)$/.exec(event.message)
    if (submitting) {
      const row = actorRow(state, submitting[1]!, 'submitter')
      row.activity = submitting[2]!.replace(/\S*\//g, '')
      row.state = 'running'
    }
    pushFeed(state, {block: state.head?.number, actor: 'devnet', kind: 'devnet', text: event.message})
    return
  }
  const row = actorRow(state, actorName(event.actor), event.role as ActorRole)
  if (event.type === 'actor-exit') {
    row.progress = undefined
    if (event.killed) {
      row.state = 'killed'
      row.activity = `killed (${event.exit.signal ?? 'SIGKILL'})`
      pushFeed(state, {block: state.head?.number, actor: row.name, kind: 'error', text: `killed with ${event.exit.signal ?? 'SIGKILL'}`})
    } else {
      row.state = row.role === 'submitter' && event.exit.exitCode === 0 ? 'running' : 'exited'
      if (row.role === 'submitter' && event.exit.exitCode === 0) return
      row.activity = event.exit.exitCode === 0 ? 'exited' : `exited with ${event.exit.exitCode ?? event.exit.signal}`
      if (event.exit.exitCode !== 0) pushFeed(state, {block: state.head?.number, actor: row.name, kind: 'error', text: row.activity})
    }
    return
  }
  if (event.type === 'actor-crash') {
    row.progress = undefined
    if (event.crash.restart) row.restarts++
    row.activity = event.crash.restart ? `restarting in ${event.crash.restart.delayMs / 1000} s` : 'crashed: given up'
    pushFeed(state, {block: state.head?.number, actor: row.name, kind: 'error', text: describeCrash(event.crash)})
    return
  }
  if (event.role === 'solver') applyTrainingEvent(state.curves, row.name, event.event)
  const update = describeActorEvent(event.role as ActorRole, event.event)
  if (update.activity !== undefined) {
    row.activity = update.activity
    row.taskId = event.event.taskId === undefined ? undefined : String(event.event.taskId)
  }
  if (update.progress === null) row.progress = undefined
  else if (update.progress) row.progress = {...update.progress, checkpoint: row.progress?.taskId === update.progress.taskId ? row.progress.checkpoint : undefined}
  if (update.checkpoint && row.progress?.taskId === update.checkpoint.taskId) row.progress.checkpoint = update.checkpoint.step
  if (update.feed) pushFeed(state, {block: state.head?.number, actor: row.name, ...update.feed})
}

/** Folds one chain poll into the view: head, balances, stakes, tasks by phase, slashes and payouts. */
export function applyChainView(state: DashboardState, view: ChainView): void {
  state.head = view.head
  state.jackpot = view.jackpot
  for (const balance of view.balances) {
    const row = state.actors.find((candidate) => candidate.address?.toLowerCase() === balance.address.toLowerCase())
    if (!row) continue
    row.balance = balance.wallet
    row.stake = balance.stake
  }
  const nameOf = (address: Address) => (address === zeroAddress ? undefined : (state.names.get(address.toLowerCase()) ?? `${address.slice(0, 8)}…`))
  state.tasks = view.tasks.map((task) => ({id: task.id.toString(), status: task.status, solver: nameOf(task.solver), verifier: nameOf(task.verifier), attempts: task.attempts}))
  // An actor that committed or judged a task hears nothing more of it when another party settles it.
  for (const row of state.actors) {
    const task = state.tasks.find((candidate) => candidate.id === row.taskId)
    if (!task || row.progress || (task.status !== 'Settled' && task.status !== 'Expired')) continue
    row.activity = `idle (#${task.id} ${task.status.toLowerCase()})`
    row.taskId = undefined
  }
  for (const event of view.events) pushFeed(state, {block: event.block, actor: event.actor, kind: event.kind, text: event.text})
}

/** Task counts per phase, in the protocol's order. */
export const taskPhases: readonly {status: TaskStatus; label: string}[] = [
  {status: 'Submitted', label: 'open'},
  {status: 'Claimed', label: 'training'},
  {status: 'Committed', label: 'committed'},
  {status: 'Verifying', label: 'verifying'},
  {status: 'Verified', label: 'challenge'},
  {status: 'Settled', label: 'settled'},
  {status: 'Expired', label: 'expired'},
]

export function countTasks(state: DashboardState): {label: string; count: number}[] {
  return taskPhases.map(({status, label}) => ({label, count: state.tasks.filter((task) => task.status === status).length}))
}

function pushFeed(state: DashboardState, entry: FeedEntry): void {
  state.feed.push(entry)
  if (state.feed.length > feedLimit) state.feed.splice(0, state.feed.length - feedLimit)
}

/** `submitter-1-job-2` is one more process of the account `submitter-1`. */
function actorName(name: string): string {
  return /^(submitter-\d+)-job-\d+$/.exec(name)?.[1] ?? name
}

function actorRow(state: DashboardState, name: string, role: ActorRole): ActorRow {
  let row = state.actors.find((candidate) => candidate.name === name)
  if (!row) {
    row = newRow(name, role)
    state.actors.push(row)
  }
  return row
}

function newRow(name: string, role: ActorRole): ActorRow {
  return {name, role, strategy: '-', address: undefined, activity: 'starting', progress: undefined, taskId: undefined, balance: undefined, stake: undefined, state: 'running', restarts: 0}
}
