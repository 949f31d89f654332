import {formatEther} from 'viem'

import type {DevnetReport} from '../sim/buildReport.js'
import type {DevnetEvent} from '../sim/createDevnet.js'
import type {DisputeAgentEvent} from '../dispute/createDisputeAgent.js'
import type {SettleOutcome} from '../protocol/marketActions.js'
import {describeDisputeEvent, describeSettle, renderTable} from './taskView.js'

/**
 * Plain-text narration of a devnet run: one line per protocol event, training progress at each quarter,
 * so the output reads the same on a terminal, a pipe or a CI log.
 */
export function createDevnetLog(write: (line: string) => void): (event: DevnetEvent) => void {
  const quarters = new Map<string, number>()
  return (event) => {
    if (event.type === 'phase') return write(`devnet  ${event.message}`)
    if (event.type === 'actor-exit') {
      if (event.exit.exitCode !== 0) write(`${event.actor.padEnd(12)} exited with ${event.exit.exitCode ?? event.exit.signal}`)
      return
    }
    const line = describe(event.event, quarters, event.actor)
    if (line) write(`${event.actor.padEnd(12)} ${line}`)
  }
}

function describe(event: Record<string, unknown>, quarters: Map<string, number>, actor: string): string | undefined {
  const task = `task ${String(event.taskId ?? '?')}`
  switch (event.type) {
    case 'ready':
      return `ready as ${String(event.address)}, backend ${String(event.runtime)}`
    case 'skipped':
    case 'inconclusive':
      return `${task}: ${event.type}, ${String(event.reason)}`
    case 'claimed':
      return event.randomness ? `${task}: verification claimed (randomness ${String(event.randomness).slice(0, 10)}…)` : `${task}: claimed`
    case 'progress': {
      const quarter = Math.floor((Number(event.step) / Number(event.steps)) * 4)
      const key = `${actor}:${String(event.taskId)}`
      if (quarter <= (quarters.get(key) ?? 0)) return undefined
      quarters.set(key, quarter)
      return `${task}: training ${event.step}/${event.steps}, loss ${Number(event.loss).toFixed(4)}`
    }
    case 'committed':
      return `${task}: committed ${event.checkpoints} checkpoints in ${Number(event.trainingSeconds).toFixed(1)} s (runtime ${String(event.runtime)})`
    case 'segment':
      return `${task}: segment ${event.segment} steps ${event.startStep}-${event.endStep} ${event.match ? 'matches' : 'DIFFERS'}`
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
      if (typeof event.taskId === 'string' && 'status' in event) {
        return `${task}: ${String(event.status)}, verdict ${String(event.verdict)}${typeof event.testAccuracy === 'number' ? `, test accuracy ${event.testAccuracy.toFixed(4)}` : ''}`
      }
      return undefined
  }
}

export function renderReport(report: DevnetReport): string {
  const tasks = renderTable(
    ['TASK', 'STATUS', 'VERDICT', 'ATTEMPTS', 'TEST ACC', 'GAS', 'TRAIN s', 'VERIFY s', 'TOTAL s'],
    report.tasks.map((task) => [
      task.id,
      task.status,
      task.verdict,
      task.rejections.length === 0 ? String(task.attempts) : `${task.attempts} (${task.rejections.length} rejected)`,
      task.testAccuracy === null ? '-' : task.testAccuracy.toFixed(4),
      task.gasUsed.total,
      String(task.seconds.training),
      String(task.seconds.verification),
      String(task.seconds.total),
    ]),
  )
  const accounts = renderTable(
    ['#', 'ACTOR', 'PLAYS', 'FEES (ETH)', 'SLASHED', 'FROM SLASHES', 'JACKPOT', 'NET Δ (ETH, after gas)'],
    report.accounts.map((account) => {
      const wallet = BigInt(account.balanceAfter) - BigInt(account.balanceBefore)
      const stake = BigInt(account.stakeAfter) - BigInt(account.stakeBefore)
      return [
        String(account.index),
        account.name,
        account.strategy ?? account.role,
        formatEther(BigInt(account.feesEarned)),
        signedEther(-BigInt(account.slashed)),
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
          ['DISPUTE', 'TASK', 'KIND', 'PROVER', 'CHALLENGER', 'OUTCOME', 'BY', 'ROUNDS', 'PINPOINT', 'GAS', 'SECONDS'],
          report.disputes.map((dispute) => [
            dispute.id,
            dispute.taskId,
            dispute.kind,
            dispute.prover,
            dispute.challenger,
            dispute.outcome,
            dispute.reason,
            String(dispute.rounds),
            dispute.element === 0 ? `step ${dispute.step}` : `step ${dispute.step}, element ${dispute.element}${dispute.kernel ? ` (${dispute.kernel})` : ''}${dispute.question === 'None' ? '' : `, ${dispute.question}`}`,
            dispute.gasUsed,
            String(dispute.seconds),
          ]),
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
  const verdict = report.ok ? `scenario ${report.scenario}: every expectation held` : `scenario ${report.scenario} FAILED:\n  ${report.failures.join('\n  ')}`
  return ['', tasks, '', accounts, '', disputes, ...slashes, jackpotLine, '', conservation, verdict].join('\n')
}

function signedEther(wei: bigint): string {
  return `${wei >= 0n ? '+' : ''}${formatEther(wei)}`
}
