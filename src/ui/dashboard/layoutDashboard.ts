import {formatEther} from 'viem'

import {type ActorRow, countTasks, type DashboardState, type TrainingProgress} from './dashboardState.js'
import type {FeedKind} from './feedKind.js'
import {trimDecimals} from './describeActorEvent.js'
import {sweepLines} from './layoutSweep.js'
import {fit, fitStart, type Line, plain, sectionLine, type Segment, type Style, type TerminalSize} from './lines.js'
import {sparkline} from './sparkline.js'
import type {LiveCurve} from './trainingCurves.js'


const feedColors: Record<FeedKind, string | undefined> = {
  submit: 'cyan',
  claim: 'blue',
  commit: 'blue',
  verdict: 'green',
  challenge: 'magenta',
  dispute: 'magenta',
  slash: 'red',
  payout: 'green',
  jackpot: 'yellow',
  timeout: 'red',
  market: undefined,
  devnet: 'gray',
  error: 'red',
}

/** Smaller than this and nothing readable fits. */
const minColumns = 40
const minRows = 10

/**
 * The whole dashboard as rows of styled text, sized to the terminal: every row exactly `columns` wide and at most
 * `rows - 1` of them (ink keeps the cursor on the row after its output, so a full-height frame would scroll).
 * Lists that do not fit end with "+N more"; the event feed takes the rows that are left and shows the newest.
 */
export function layoutDashboard(state: DashboardState, size: TerminalSize, now = Date.now()): Line[] {
  const width = Math.max(minColumns, size.columns)
  const height = Math.max(minRows, size.rows) - 1
  const header = headerLine(state, width)
  const footer = footerLine(state, width)
  const sweep = state.sweep && sweepLines(state.sweep.progress, state.sweep.following, width, now)
  // A sweep's cells come first (its progress is what the run is about), in at most a quarter of the rows.
  const sweepRows = sweep ? Math.min(sweep.cells.length, Math.max(1, Math.floor((height - 6) / 4))) : 0
  const sweepSection = sweep ? [sweep.heading, ...clip(sweep.cells, sweepRows, width)] : []

  const actorLines = state.actors.length === 0 ? [plain(`  ${state.phase}`, width, {dimColor: true})] : state.actors.map((actor) => actorLine(actor, actorColumns(state, width)))
  const taskLines = state.tasks.map((task) =>
    plain(`  #${task.id.padEnd(4)} ${task.status.padEnd(10)} ${task.solver ?? '-'}${task.verifier ? ` / ${task.verifier}` : ''}${task.attempts > 0 ? `  (${task.attempts} rejected)` : ''}`, width),
  )
  const curveLines = trainingLines(state, width)
  // Fixed rows: header, the section titles (TRAINING only once a solver reported a loss), the footer. The rest
  // is shared: actors first (they are the point of the view), then a few training curves and tasks, then the
  // feed gets everything left (at least 3 rows).
  const free = height - 5 - (curveLines.length > 0 ? 1 : 0) - sweepSection.length
  const actorRows = Math.min(actorLines.length, Math.max(2, free - 3 - Math.min(taskLines.length, 2) - Math.min(curveLines.length, 1)))
  const curveRows = Math.min(curveLines.length, Math.max(0, Math.min(3, free - actorRows - 3)))
  const taskRows = Math.min(taskLines.length, Math.max(0, Math.min(Math.floor(free / 4), free - actorRows - curveRows - 3)))
  const feedRows = Math.max(0, free - actorRows - curveRows - taskRows)

  return [
    header,
    ...sweepSection,
    actorHeading(actorColumns(state, width), width),
    ...clip(actorLines, actorRows, width),
    ...(curveLines.length > 0 ? [sectionLine('TRAINING', 'loss at each checkpoint, as the solvers report it', width), ...clip(curveLines, curveRows, width)] : []),
    sectionLine('TASKS', taskCounts(state), width),
    ...clip(taskLines, taskRows, width),
    sectionLine('EVENTS', `${state.feed.length} so far`, width),
    ...feedLines(state, feedRows, width),
    footer,
  ].slice(0, height)
}

function headerLine(state: DashboardState, width: number): Line {
  const head = state.head
  // The chain's clock (UTC), not the wall clock: it stands still while the devnet is paused.
  const chain = head ? `block ${head.number} · ${new Date(Number(head.timestamp) * 1000).toISOString().slice(11, 19)}` : 'no chain yet'
  const jackpot = state.jackpot === undefined ? '' : ` · jackpot ${ether(state.jackpot, 4)}`
  const badge = modeBadge(state)
  const left = fit(` gensyn devnet${state.sweep ? ' sweep' : ''} · ${state.scenario} · ${chain}${jackpot}`, width - badge.text.length)
  return [{text: left, inverse: true, bold: true}, badge]
}

function modeBadge(state: DashboardState): Segment {
  switch (state.mode) {
    case 'paused':
      return {text: ' PAUSED ', backgroundColor: 'yellow', color: 'black', bold: true}
    case 'pausing':
      return {text: ' PAUSING… ', backgroundColor: 'yellow', color: 'black'}
    case 'resuming':
      return {text: ' RESUMING… ', backgroundColor: 'yellow', color: 'black'}
    case 'stopping':
      return {text: ' STOPPING ', backgroundColor: 'red', color: 'white', bold: true}
    case 'starting':
      return {text: ' STARTING ', backgroundColor: 'blue', color: 'white'}
    default:
      return {text: ' RUNNING ', backgroundColor: 'green', color: 'black', bold: true}
  }
}

function footerLine(state: DashboardState, width: number): Line {
  const keys = state.mode === 'stopping' ? ' stopping: actors stop, report, anvil stops ' : state.sweep ? ' q quit · n next cell ' : state.mode === 'paused' ? ' q quit · p resume ' : ' q quit · p pause '
  const where = ` ${state.rpcUrl ?? ''} · logs ${state.stateDir}/logs`
  return [{text: keys, inverse: true}, {text: fit(where, width - keys.length), dimColor: true}]
}

type ActorColumns = {name: number; role: number; strategy: number; balance: number; stake: number; activity: number; decimals: number}

/** Names and strategies take what they need up to a cap; the activity (and its bar) takes the rest. */
function actorColumns(state: DashboardState, width: number): ActorColumns {
  const longest = (values: string[], floor: number, cap: number) => Math.min(cap, Math.max(floor, ...values.map((value) => value.length)))
  const wide = width >= 120
  const role = wide ? 13 : 7
  const strategy = longest(state.actors.map((actor) => actor.strategy), 8, wide ? 16 : 10)
  const decimals = wide ? 4 : 2
  const balance = wide ? 12 : 8
  const stake = wide ? 9 : 6
  const fixed = role + strategy + balance + stake + 5
  // The activity keeps at least 26 columns: enough for a task id, a bar and its percentage.
  const name = longest(state.actors.map((actor) => actor.name), 6, Math.max(6, Math.min(24, width - fixed - 26)))
  const activity = width - name - fixed
  return {name, role, strategy, balance, stake, activity, decimals}
}

/** The section title, then each column's name above its column. */
function actorHeading(columns: ActorColumns, width: number): Line {
  const title = 'ACTORS'.slice(0, columns.name)
  const rest = `${' '.repeat(columns.name - title.length)} ${'ROLE'.padEnd(columns.role)} ${'STRATEGY'.padEnd(columns.strategy)} ${'ETH'.padStart(columns.balance)} ${'STAKE'.padStart(columns.stake)} ACTIVITY`
  return [{text: title, bold: true, color: 'cyan'}, {text: fit(rest, width - title.length), dimColor: true}]
}

const shortRoles: Record<string, string> = {submitter: 'submit', solver: 'solver', verifier: 'verify', whistleblower: 'whistle'}

function actorLine(actor: ActorRow, columns: ActorColumns): Line {
  const role = columns.role >= 13 ? actor.role : (shortRoles[actor.role] ?? actor.role)
  const fixed = `${fit(actor.restarts > 0 ? `${actor.name} ↻${actor.restarts}` : actor.name, columns.name)} ${fit(role, columns.role)} ${fit(actor.strategy, columns.strategy)} ${fitStart(actor.balance === undefined ? '-' : ether(actor.balance, columns.decimals, false), columns.balance)} ${fitStart(actor.stake === undefined ? '-' : ether(actor.stake, columns.decimals, false), columns.stake)} `
  const dim = actor.state !== 'running'
  const color = actor.strategy !== 'honest' && actor.strategy !== '-' ? 'magenta' : undefined
  return [{text: fixed, dimColor: dim, ...(color ? {color} : {})}, ...activityCell(actor, columns.activity)]
}

/** The activity, with a training bar when the actor is training and the row has room for one. */
function activityCell(actor: ActorRow, width: number): Segment[] {
  const {progress} = actor
  if (!progress || width < 24) return [{text: fit(actor.activity, width), dimColor: actor.state !== 'running'}]
  const percent = `${String(Math.floor(fraction(progress) * 100)).padStart(4)}%`
  const labelText = `${actor.activity.replace(/^training /, '')} `
  const label = fit(labelText, Math.min(labelText.length, 12))
  // The bar takes what is left after the label, the brackets and the percentage, within 5..30 cells.
  const barWidth = Math.max(5, Math.min(20, width - label.length - percent.length - 2))
  const filled = Math.round(fraction(progress) * barWidth)
  const rest = width - label.length - barWidth - 2
  const detail = `${percent} ${progress.step}/${progress.steps}${progress.checkpoint === undefined ? '' : ` ckpt ${progress.checkpoint}`}`
  return [
    {text: `${label}[`},
    {text: '█'.repeat(filled), color: 'green'},
    {text: '░'.repeat(barWidth - filled), dimColor: true},
    {text: ']'},
    {text: fit(detail.length <= rest ? detail : percent, rest)},
  ]
}

function fraction(progress: TrainingProgress): number {
  const span = progress.steps - progress.from
  if (span <= 0) return 1
  return Math.min(1, Math.max(0, (progress.step - progress.from) / span))
}

/** A row per task being trained with a checkpoint's loss: its sparkline per checkpoint, the first and last loss. */
function trainingLines(state: DashboardState, width: number): Line[] {
  const training = (curve: LiveCurve) => state.actors.some((actor) => actor.name === curve.solver && actor.progress?.taskId === curve.taskId)
  return state.curves
    .filter((curve) => curve.checkpoints.length > 0 && training(curve))
    .map((curve): Line => {
      const label = `  #${curve.taskId.padEnd(4)} ${fit(curve.solver, 14)} loss `
      const losses = curve.checkpoints.map((point) => point.loss)
      const summary = ` ${losses[0]!.toFixed(3)} → ${losses.at(-1)!.toFixed(3)} · ${losses.length} ckpt${losses.length === 1 ? '' : 's'} · now ${curve.lastLoss?.toFixed(3) ?? '-'} at step ${curve.step}`
      const chart = sparkline(losses, Math.max(0, Math.min(24, width - label.length - 20)))
      return [{text: label}, {text: chart, color: 'green'}, {text: fit(summary, width - label.length - chart.length)}]
    })
}

function taskCounts(state: DashboardState): string {
  const counts = countTasks(state)
  const all = counts.map(({label, count}) => `${label} ${count}`).join(' · ')
  const nonZero = counts.filter(({count}) => count > 0).map(({label, count}) => `${label} ${count}`).join(' · ')
  return `${state.tasks.length} total: ${all.length <= 60 ? all : nonZero || 'none yet'}`
}

function feedLines(state: DashboardState, rows: number, width: number): Line[] {
  if (rows <= 0) return []
  const shown = state.feed.slice(-rows)
  const nameWidth = Math.min(width >= 120 ? 22 : 14, Math.max(6, ...shown.map((entry) => entry.actor.length)))
  const lines = shown.map((entry): Line => {
    const block = entry.block === undefined ? '     ' : `${String(entry.block).padStart(5)}`
    const prefix = `${block} ${fit(entry.actor, nameWidth)} `
    const color = feedColors[entry.kind]
    return [{text: prefix, dimColor: true}, {text: fit(entry.text, width - prefix.length), ...(color ? {color} : {})}]
  })
  const missing = rows - lines.length
  return missing > 0 ? [...lines, ...Array.from({length: missing}, () => plain('', width))] : lines
}

/** Up to `rows` lines; when some do not fit, the last row says how many. */
function clip(lines: Line[], rows: number, width: number): Line[] {
  if (lines.length <= rows) return lines
  if (rows <= 0) return []
  return [...lines.slice(0, rows - 1), plain(`  +${lines.length - rows + 1} more`, width, {dimColor: true})]
}

function ether(wei: bigint, decimals: number, unit = true): string {
  const value = formatEther(wei)
  const [whole, fraction = ''] = value.split('.')
  const text = decimals === 0 ? whole! : `${whole}.${fraction.padEnd(decimals, '0').slice(0, decimals)}`
  return unit ? `${text} ETH` : text
}

export {trimDecimals}
