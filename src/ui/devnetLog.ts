import {crowdFigures} from '../sim/crowd/crowdFigures.js'
import type {CrowdReport} from '../sim/crowd/types.js'
import {formatEther, formatUnits} from 'viem'

import type {DevnetReport} from '../sim/buildReport.js'
import type {DevnetEvent} from '../sim/createDevnet.js'
import {describeCrash} from '../sim/superviseActor.js'
import {disputeColumns, disputeRow, ledgerColumns, ledgerRow} from '../sim/report/tableRows.js'
import {STOPPED_BY_USER} from '../sim/report/types.js'
import type {DisputeAgentEvent} from '../dispute/createDisputeAgent.js'
import type {SettleOutcome} from '../protocol/marketActions.js'
import {renderPriceChart} from './priceChart.js'
import {describeDisputeEvent, describeSettle} from './taskView.js'
import {renderTable} from './renderTable.js'

/**
 * Plain-text narration of a devnet run: one line per protocol event, training progress at each quarter,
 * so the output reads the same on a terminal, a pipe or a CI log.
 */
export function createDevnetLog(write: (line: string) => void): (event: DevnetEvent) => void {
  const quarters = new Map<string, number>()
  // Solvers that announced they are leaving the market: their exit is the end of it.
  const leaving = new Set<string>()
  return (event) => {
    if (event.type === 'phase') return write(`devnet  ${event.message}`)
    if (event.type === 'actor-exit') {
      if (event.killed) write(`${event.actor.padEnd(12)} is gone (killed with ${event.exit.signal ?? 'SIGKILL'}); its task waits for the training deadline`)
      else if (event.exit.exitCode !== 0) write(`${event.actor.padEnd(12)} exited with ${event.exit.exitCode ?? event.exit.signal}`)
      else if (leaving.has(event.actor)) write(`${event.actor.padEnd(12)} left the market and exited`)
      return
    }
    if (event.type === 'actor-crash') return write(`${event.actor.padEnd(12)} ${describeCrash(event.crash)}`)
    if (event.event.type === 'leaving') leaving.add(event.actor)
    const line = describe(event.event, quarters, event.actor, event.role)
    if (line) write(`${event.actor.padEnd(12)} ${line}`)
  }
}

function describe(event: Record<string, unknown>, quarters: Map<string, number>, actor: string, role: string): string | undefined {
  const task = `task ${String(event.taskId ?? '?')}`
  switch (event.type) {
    case 'ready':
      // A whistleblower names no backend until it replays: it picks the one each proof needs.
      return `ready as ${String(event.address)}${event.runtime === undefined ? '' : `, backend ${String(event.runtime)}`}`
    case 'skipped':
    case 'inconclusive':
      return `${task}: ${event.type}, ${String(event.reason)}`
    case 'claimed':
      if (event.randomness) return `${task}: verification claimed (randomness ${String(event.randomness).slice(0, 10)}…)`
      return `${task}: claimed${event.price === undefined ? '' : ` at ${gwei(event.price)} gwei per work unit`}`
    case 'offer-listed':
      return `listed its offer: ask ${gwei(event.ask)} gwei per work unit, capacity ${String(event.capacity)} (price ${gwei(event.price)})`
    case 'offer-withdrawn':
      return event.reason === 'leaving'
        ? `withdrew its offer: leaving the market (price ${gwei(event.price)} gwei)`
        : `withdrew its offer: price ${gwei(event.price)} gwei is below its ask ${gwei(event.ask)}`
    case 'leaving':
      return `leaving the market after ${String(event.afterSeconds)} s: no new claims`
    case 'expired':
      return `${task}: expired the claim of ${String(event.solver)} past its training deadline: back in the pool`
    case 'resumed':
      return `${task}: resuming from its checkpoint at step ${String(event.step)}`
    case 'progress': {
      const from = Number(event.from ?? 0)
      const quarter = Math.floor(((Number(event.step) - from) / (Number(event.steps) - from)) * 4)
      const key = `${actor}:${String(event.taskId)}`
      if (quarter <= (quarters.get(key) ?? 0)) return undefined
      quarters.set(key, quarter)
      return `${task}: training ${event.step}/${event.steps}, loss ${Number(event.loss).toFixed(4)}`
    }
    case 'committed':
      // A whistleblower's commitment to a challenge has the same type as a solver's commit of its proof.
      if (role === 'whistleblower') return `${task}: committed to a challenge (hidden until the window closes)`
      return `${task}: committed ${event.checkpoints} checkpoints${event.totalSteps === undefined ? '' : ` (${String(event.totalSteps)} steps)`} in ${Number(event.trainingSeconds).toFixed(1)} s (runtime ${String(event.runtime)})`
    case 'segment':
      return `${task}: segment ${event.segment} steps ${event.startStep}-${event.endStep} ${segmentOutcome(event)}`
    case 'verdict':
      return `${task}: verdict ${event.accepted ? 'accepted' : `rejected (${String(event.reason ?? 'mismatch')})`}`
    case 'settled':
      return `${task}: settled`
    case 'settle':
      return `${task}: ${describeSettle(event.outcome as SettleOutcome)}`
    case 'coin':
      return event.forced ? `${task}: FORCED ERROR drawn: publishing a deliberately wrong proof, the honest one sealed` : undefined
    case 'revealed':
      return `${task}: revealed the forced error (honest proof ${String(event.honestRoot).slice(0, 10)}…)`
    case 'rejection-disputed':
      return `${task}: disputes the rejection of segment ${String(event.segment)}`
    case 'challenged':
      return `${task}: CHALLENGED segment ${String(event.segment)} (replay ${String(event.claimedEndHash).slice(0, 10)}…)`
    case 'joined':
      return `joined the active whistleblowers (${String(event.active)} active)`
    case 'left':
      return `left the active whistleblowers (${String(event.active)} active)`
    case 'dispute': {
      const inner = event.event as DisputeAgentEvent
      return inner.type === 'lost-race' ? undefined : `dispute ${String(inner.disputeId)}: ${describeDisputeEvent(inner)}`
    }
    case 'warning':
      return `${task}: ${String(event.message)}`
    case 'lost-race':
      return `${task}: taken by another actor`
    default:
      // A submitter's final result: one line per task.
      if (Array.isArray(event.tasks) && 'status' in event) {
        return (event.tasks as Record<string, unknown>[])
          .map(
            (entry) =>
              `task ${String(entry.taskId)}: ${String(entry.status)}, verdict ${String(entry.verdict)}, refunded ${formatEther(BigInt(String(entry.refunded ?? '0')))} of ${formatEther(BigInt(String(entry.escrow ?? '0')))} ETH${typeof entry.testAccuracy === 'number' ? `, test accuracy ${entry.testAccuracy.toFixed(4)}` : ''}`,
          )
          .join(`\n${actor.padEnd(12)} `)
      }
      return undefined
  }
}

export function renderReport(report: DevnetReport): string {
  const tasks = renderTable(
    ['TASK', 'PARENT', 'STATUS', 'VERDICT', 'CLAIMS', 'STEPS', 'TEST ACC', 'GAS', 'TRAIN s', 'VERIFY s', 'TOTAL s'],
    report.tasks.map((task) => [
      task.id,
      task.parentId === '0' ? '-' : task.parentId,
      task.status,
      task.verdict,
      describeAttempts(task),
      `${task.totalSteps}/${task.maxSteps}`,
      task.testAccuracy === null ? '-' : task.testAccuracy.toFixed(4),
      task.gasUsed.total,
      String(task.seconds.training),
      String(task.seconds.verification),
      String(task.seconds.total),
    ]),
  )
  const ledger = renderTable(
    ledgerColumns.map((column) => column.toUpperCase().replace('GWEI/WU', 'gwei/WU')),
    report.tasks.map((task) => ledgerRow(task)),
  )
  const accounts = renderTable(
    ['#', 'ACTOR', 'PLAYS', 'FEES (ETH)', 'SLASHED', 'TIMEOUTS', 'FROM SLASHES', 'JACKPOT', 'NET Δ (ETH, after gas)'],
    report.accounts.map((account) => {
      const wallet = BigInt(account.balanceAfter) - BigInt(account.balanceBefore)
      const stake = BigInt(account.stakeAfter) - BigInt(account.stakeBefore)
      return [
        String(account.index),
        account.name,
        account.strategy ?? account.role,
        formatEther(BigInt(account.feesEarned)),
        signedEther(-BigInt(account.slashed)),
        account.timeouts === 0 ? '-' : `${account.timeouts} (${signedEther(-BigInt(account.timeoutSlashed))})`,
        signedEther(BigInt(account.slashGains)),
        signedEther(BigInt(account.jackpotWon)),
        signedEther(wallet + stake),
      ]
    }),
  )
  const disputes =
    report.disputes.length === 0
      ? 'no disputes'
      : renderTable(
          disputeColumns.map((column) => column.toUpperCase()),
          report.disputes.map(disputeRow),
        )
  const slashes = report.slashes.map(
    (slash) =>
      `slash  task ${slash.taskId}: ${slash.account} lost ${formatEther(BigInt(slash.amount))} ETH: ${slash.winner === null ? 'no winner' : `${formatEther(BigInt(slash.toWinner))} to ${slash.winner}`}, ${formatEther(BigInt(slash.toTreasury))} to the treasury, ${formatEther(BigInt(slash.burned))} burned`,
  )
  const {jackpot} = report
  const payouts = jackpot.payouts.map((payout) => `${payout.catcher} ${formatEther(BigInt(payout.amount))}`).join(', ')
  const jackpotLine = `jackpot ${formatEther(BigInt(jackpot.before))} -> ${formatEther(BigInt(jackpot.after))} ETH (funded ${formatEther(BigInt(jackpot.funded))}, tax ${formatEther(BigInt(jackpot.taxIn))}, paid ${formatEther(BigInt(jackpot.paidOut))}${payouts ? `: ${payouts}` : ''})`
  const conservation = report.conservation.ok
    ? `money conserved: every wei accounted for (gas fees ${formatEther(BigInt(report.conservation.gasFees))} ETH, burned ${formatEther(BigInt(report.conservation.burned))} ETH)`
    : `MONEY NOT CONSERVED: before ${report.conservation.totalBefore}, after ${report.conservation.totalAfter} + fees ${report.conservation.gasFees}`
  const verdict = report.ok
    ? `scenario ${report.scenario}: every expectation held`
    : report.partial?.reason === STOPPED_BY_USER
      ? `scenario ${report.scenario}: stopped by you (Ctrl-C or q) before every job settled; the report is partial, its expectations not judged`
      : `scenario ${report.scenario} FAILED:\n  ${report.failures.join('\n  ')}`
  // A crowd's hundreds of tasks and accounts are in report.md; the terminal gets its figures instead.
  const perTask = report.crowd ? renderCrowd(report.crowd) : [tasks, '', ledger, '', accounts, '', disputes, ...slashes]
  return ['', ...perTask, jackpotLine, '', ...renderDetection(report), '', ...(report.crowd ? [] : [...renderMarket(report), '']), conservation, verdict].join('\n')
}

function renderCrowd(crowd: CrowdReport): string[] {
  return [...crowdFigures(crowd).map(([figure, value]) => `${figure}: ${value}`), '']
}

/** The detection matrix and gas per phase (report.md charts them). */
function renderDetection(report: DevnetReport): string[] {
  const history = report.history
  if (!history) return []
  const matrix = renderTable(
    ['ROLE: STRATEGY', 'PLAYS', 'CAUGHT/SLASHED', 'NOT CAUGHT', 'PENDING', 'CAUGHT BY'],
    history.detection.map((row) => [
      row.label,
      String(row.plays),
      String(row.caught),
      String(row.notCaught),
      String(row.pending),
      row.caughtBy.map((catcher) => `${catcher.by}${catcher.count > 1 ? ` x${catcher.count}` : ''}`).join(', ') || '-',
    ]),
  )
  const gas = history.gas.filter((entry) => entry.gas !== '0').map((entry) => `${entry.phase} ${entry.gas}`)
  return [matrix, `gas per phase: ${gas.join(', ') || 'none'}`]
}

function describeAttempts(task: DevnetReport['tasks'][number]): string {
  const notes = [...(task.rejections.length > 0 ? [`${task.rejections.length} rejected`] : []), ...(task.timeouts > 0 ? [`${task.timeouts} timed out`] : [])]
  return notes.length === 0 ? String(task.claims) : `${task.claims} (${notes.join(', ')})`
}

/** The market part of the report: the price chart, every solver's joins and leaves, timeouts and dropouts. */
function renderMarket(report: DevnetReport): string[] {
  const {market} = report
  const lines: string[] = []
  if (market.series.length > 0) {
    lines.push(
      `market price (gwei per work unit): start ${formatUnits(BigInt(market.price.start), 9)}, end ${formatUnits(BigInt(market.price.end), 9)}, min ${formatUnits(BigInt(market.price.min), 9)}, max ${formatUnits(BigInt(market.price.max), 9)}`,
    )
    const marks = market.offers.flatMap((offer) => offer.events.map((event) => ({seconds: event.seconds, mark: event.type === 'listed' ? ('join' as const) : ('leave' as const)})))
    lines.push(renderPriceChart(market.series.map((point) => ({seconds: point.seconds, price: BigInt(point.price)})), {marks}))
    if (market.shock) {
      lines.push(
        `supply shock: ${market.shock.solver} left at ${market.shock.seconds} s at ${formatUnits(BigInt(market.shock.price), 9)} gwei; the price then ${market.shock.rose ? `rose to ${formatUnits(BigInt(market.shock.maxAfter), 9)} gwei` : 'did not rise'}`,
      )
    }
  }
  if (market.offers.length > 0) {
    lines.push(
      renderTable(
        ['SOLVER', 'ASK (gwei/WU)', 'CAPACITY', 'JOINS', 'LEAVES', 'OFFER LISTED (+) / WITHDRAWN (-) AT s'],
        market.offers.map((offer) => [
          offer.solver,
          formatUnits(BigInt(offer.ask), 9),
          String(offer.capacity),
          String(offer.joins),
          String(offer.leaves),
          offer.events.map((event) => `${event.type === 'listed' ? '+' : '-'}${event.seconds}`).join(' '),
        ]),
      ),
    )
  }
  for (const timeout of market.timeouts) {
    lines.push(`timeout  task ${timeout.taskId}: ${timeout.solver} missed its training deadline at ${timeout.seconds} s and lost ${formatEther(BigInt(timeout.slashed))} ETH of stake; the task went back to the pool`)
  }
  for (const dropout of report.dropouts) lines.push(`dropout  ${dropout.actor} was killed (SIGKILL) after storing step ${dropout.step} of task ${dropout.taskId}`)
  return lines
}

/** Wei per work unit in gwei, for log lines. */
function gwei(value: unknown): string {
  return formatUnits(BigInt(String(value)), 9)
}

function signedEther(wei: bigint): string {
  return `${wei >= 0n ? '+' : ''}${formatEther(wei)}`
}

/** A replayed segment in words: bit for bit, within tolerance-mode thresholds (hashMatch false), or not. */
export function segmentOutcome(event: {match?: unknown; hashMatch?: unknown}): string {
  if (!event.match) return 'DIFFERS'
  return event.hashMatch === false ? 'within the thresholds' : 'matches'
}
