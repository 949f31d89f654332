import type {Address} from 'viem'

import {exitReason} from '../../actorExit.js'
import {moneyByAccount} from '../moneyByAccount.js'
import type {ReportContext} from '../reportContext.js'
import type {ConservationReport} from './conservation.js'
import type {DisputeReport} from './disputes.js'
import type {TaskReport} from './tasks.js'

/** The sections the failures judge. */
export type JudgedSections = {tasks: readonly TaskReport[]; disputes: readonly DisputeReport[]; conservation: ConservationReport}

/**
 * Everything the run was held to and missed, one line each: the scenario's expectations, and the protocol's own
 * promises whatever the scenario (every wei of every escrow accounted for, no honest party slashed, no cheat paid).
 */
export function failuresSection(ctx: ReportContext, {tasks, disputes, conservation}: JudgedSections): string[] {
  return [
    ...taskCountFailures(ctx),
    ...ledgerFailures(tasks),
    ...timeoutFailures(ctx),
    ...priceFailures(ctx),
    ...tasks.flatMap((report) => report.expectations.failures.map((failure) => `task ${report.id}: ${failure}`)),
    ...honestyFailures(ctx, tasks),
    ...expectedMoneyFailures(ctx),
    ...disputeFailures(ctx, disputes),
    ...submitterFailures(ctx),
    ...(conservation.ok ? [] : ['money is not conserved']),
  ]
}

function taskCountFailures({scenario, scenarioTaskIds}: ReportContext): string[] {
  const expectedTasks = scenario.jobs.reduce((sum, job) => sum + job.count, 0)
  if (scenario.expect.allSettled && scenarioTaskIds.size < expectedTasks) return [`expected at least ${expectedTasks} tasks from the scenario's jobs, found ${scenarioTaskIds.size}`]
  return []
}

/** docs/market.md, section 2: every wei of every escrow is accounted for, whatever the scenario. */
function ledgerFailures(tasks: readonly TaskReport[]): string[] {
  const failures: string[] = []
  for (const report of tasks) {
    if (!['Settled', 'Expired'].includes(report.status)) continue
    const {ledger} = report
    if (!ledger.balanced) {
      const payments = BigInt(ledger.solverPaid) + BigInt(ledger.verifierPaid) + BigInt(ledger.tax) + BigInt(ledger.fromEscrow)
      failures.push(`task ${report.id}: refunded ${ledger.refunded} wei, expected escrow ${report.escrow} - payments ${payments} = ${BigInt(report.escrow) - payments}`)
    }
  }
  return failures
}

/** The solvers expected to time out did; no honest one did. */
function timeoutFailures({scenario, byName, market, strategyOf, timeoutsOf}: ReportContext): string[] {
  const failures: string[] = []
  for (const name of scenario.expect.timedOut) {
    const address = byName.get(name)
    if (address === undefined) failures.push(`expect.timedOut: no actor named ${name}`)
    else if (timeoutsOf(address).length === 0) failures.push(`${name} never timed out`)
  }
  for (const timeout of market.timeouts) {
    const address = byName.get(timeout.solver)
    if (address !== undefined && strategyOf(address as Address) === 'honest') failures.push(`task ${timeout.taskId}: honest ${timeout.solver} missed its training deadline`)
  }
  return failures
}

function priceFailures({scenario, market}: ReportContext): string[] {
  if (!scenario.expect.priceRises || market.shock?.rose) return []
  return [market.shock ? `the price did not rise after ${market.shock.solver} left at ${market.shock.seconds} s (${market.shock.price} wei per work unit)` : 'expect.priceRises: no solver ever withdrew its offer']
}

/** The protocol's own promises, whatever the scenario: no honest party is slashed, no cheat is paid. */
function honestyFailures({scenario, nameOf, strategyOf, money}: ReportContext, tasks: readonly TaskReport[]): string[] {
  const failures: string[] = []
  for (const report of tasks) {
    for (const rejection of report.rejections) {
      if (strategyOf(rejection.solver) === 'honest') failures.push(`task ${report.id}: honest solver ${nameOf(rejection.solver)} was rejected`)
    }
    const strategy = strategyOf(report.solver)
    // A crowd measures how many cheats pass (the report's Crowd section): its cheaters' paid tasks are counted there.
    const mayPass = scenario.expect.paidCheaters.includes(nameOf(report.solver)) || strategy === 'crowd-cheater'
    if (report.status === 'Settled' && report.verdict === 'accepted' && strategy !== undefined && strategy !== 'honest' && !mayPass) {
      failures.push(`task ${report.id}: the ${strategy} cheater ${nameOf(report.solver)} was paid (its faked segments were not sampled)`)
    }
  }
  for (const slash of money.slashes) {
    if (strategyOf(slash.account) === 'honest') failures.push(`task ${slash.taskId}: honest ${nameOf(slash.account)} was slashed ${slash.amount} wei`)
  }
  return failures
}

/** expect.slashed and expect.jackpotPaid: the named actors lost stake, or won from the jackpot. */
function expectedMoneyFailures({scenario, byName, money}: ReportContext): string[] {
  const {slashedOf, jackpotOf} = moneyByAccount(money)
  const failures: string[] = []
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
  return failures
}

function disputeFailures({scenario}: ReportContext, disputes: readonly DisputeReport[]): string[] {
  const failures: string[] = []
  if (disputes.length < scenario.expect.disputes.min) failures.push(`expected at least ${scenario.expect.disputes.min} disputes, found ${disputes.length}`)
  const allowed = scenario.expect.disputes.outcomes
  for (const dispute of disputes) {
    if (dispute.outcome === 'None') failures.push(`dispute ${dispute.id} (task ${dispute.taskId}) never ended`)
    else if (allowed && !allowed.includes(dispute.outcome as (typeof allowed)[number])) failures.push(`dispute ${dispute.id} ended ${dispute.outcome}, expected one of ${allowed.join(', ')}`)
  }
  return failures
}

/** A submitter that failed (not one the devnet stopped when the run ended). */
function submitterFailures({submissions}: ReportContext): string[] {
  return submissions
    .filter((submission) => submission.exit.exitCode !== 0 && !submission.stoppedByDevnet)
    .map((submission) => `${submission.submitter} exited with ${submission.exit.exitCode ?? submission.exit.signal}: ${exitReason(submission.exit)}`)
}
