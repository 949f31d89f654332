import {formatEther, formatUnits} from 'viem'

import type {DevnetReport} from '../buildReport.js'
import {type ChartFile, reportCharts} from './charts/index.js'
import {formatGas} from './charts/gasChart.js'
import {disputeColumns, disputeRow, ledgerColumns, ledgerRow} from './tableRows.js'
import {trainingColumns, trainingRow} from './trainingTableRows.js'
import {crowdFigures} from '../crowd/crowdFigures.js'

export type RenderMarkdownOptions = {
  /** Where the chart SVGs are, relative to report.md (default `charts`). */
  chartsDir?: string
  /** How a chart is placed (default: an image of its SVG); report.html puts a live chart there instead. */
  chart?: (file: ChartFile, title: string) => string
}

/** report.md: the summary, the expectations, every chart (as charts/x.svg beside it) and the tables behind them. */
export function renderMarkdown(report: DevnetReport, options: RenderMarkdownOptions = {}): string {
  const charts = options.chartsDir ?? 'charts'
  const chart = (file: ChartFile) => {
    const entry = reportCharts.find((candidate) => candidate.file === file)!
    return options.chart ? options.chart(file, entry.title) : `![${entry.title}](${charts}/${file})`
  }
  const lines = [
    `# Devnet report: ${report.scenario}`,
    '',
    ...(report.seed === undefined ? [] : [`Seed ${report.seed}: \`gensyn devnet up --scenario … --seed ${report.seed}\` replays its keys, secrets and random choices.`, '']),
    report.ok ? '**Result: every expectation held.**' : `**Result: FAILED** (${count(report.failures.length, 'failure')}).`,
    '',
    ...(report.partial ? [`**Partial report**: ${escapeText(report.partial.reason).replace(/\.?$/, '.')}${report.partial.chainRead ? '' : ' The chain could not be read: what follows is what the actors reported.'}`, ''] : []),
    ...summaryLines(report),
    '## Expectations',
    '',
    ...(report.expectations ?? []).map((line) => `- ${line}`),
    ...(report.expectations?.length ? [''] : []),
    report.failures.length === 0 ? 'Every one held.' : 'Failed:',
    ...(report.failures.length === 0 ? [] : ['', ...report.failures.map((failure) => `- ${escapeText(failure)}`)]),
    '',
    '## Balances over time',
    '',
    chart('balances.svg'),
    '',
    table(
      ['#', 'actor', 'plays', 'fees (ETH)', 'slashed', 'from slashes', 'jackpot', 'net change (ETH, after gas)'],
      report.accounts.map((account) => [
        String(account.index),
        account.name,
        account.strategy ?? account.role,
        formatEther(BigInt(account.feesEarned)),
        signed(-BigInt(account.slashed)),
        signed(BigInt(account.slashGains)),
        signed(BigInt(account.jackpotWon)),
        signed(BigInt(account.balanceAfter) - BigInt(account.balanceBefore) + BigInt(account.stakeAfter) - BigInt(account.stakeBefore)),
      ]),
    ),
    '',
    ...crowdLines(report),
    ...jobsTable(report),
    '## Task timeline',
    '',
    chart('timeline.svg'),
    '',
    table(
      ['task', 'parent', 'status', 'verdict', 'claims', 'steps', 'test acc', 'queued s', 'training s', 'verification s', 'challenge s', 'total s'],
      report.tasks.map((task) => [
        task.id,
        task.parentId === '0' ? '-' : task.parentId,
        task.status,
        task.verdict,
        String(task.claims),
        `${task.totalSteps}/${task.maxSteps}`,
        task.testAccuracy === null ? '-' : task.testAccuracy.toFixed(4),
        String(task.seconds.queued),
        String(task.seconds.training),
        String(task.seconds.verification),
        String(task.seconds.challenge),
        String(task.seconds.total),
      ]),
    ),
    '',
    ...trainingLines(report, chart('training.svg')),
    '## Detection matrix',
    '',
    chart('detection.svg'),
    '',
    table(
      ['role: strategy', 'actors', 'plays', 'caught / slashed', 'not caught', 'pending', 'caught by'],
      (report.history?.detection ?? []).map((row) => [
        row.label,
        row.actors.join(', ') || '-',
        String(row.plays),
        String(row.caught),
        String(row.notCaught),
        String(row.pending),
        row.caughtBy.map((catcher) => `${catcher.by}${catcher.count > 1 ? ` ×${catcher.count}` : ''}`).join(', ') || '-',
      ]),
    ),
    '',
    'A play is a solver\'s claim, a verifier\'s verification, a whistleblower\'s challenge or a forced error. On an honest row a catch is a mistake.',
    '',
    '## Gas per phase',
    '',
    chart('gas.svg'),
    '',
    table(
      ['phase', 'gas', 'transactions'],
      (report.history?.gas ?? []).map((entry) => [entry.phase, entry.gas, String(entry.transactions)]),
    ),
    '',
    '## Whistleblowers',
    '',
    chart('whistleblowers.svg'),
    '',
    whistleblowerSummary(report),
    '',
    ...priceLines(report, chart('price.svg')),
    '## Money per task',
    '',
    table([...ledgerColumns], report.tasks.map((task) => ledgerRow(task, '**NO**'))),
    ...(report.disputes.length === 0
      ? []
      : [
          '',
          '## Disputes',
          '',
          table([...disputeColumns], report.disputes.map(disputeRow)),
        ]),
    ...(report.slashes.length === 0
      ? []
      : [
          '',
          '## Slashes',
          '',
          table(
            ['task', 'account', 'amount (ETH)', 'winner', 'to winner', 'to treasury', 'burned'],
            report.slashes.map((slash) => [
              slash.taskId,
              slash.account,
              formatEther(BigInt(slash.amount)),
              slash.winner ?? '-',
              formatEther(BigInt(slash.toWinner)),
              formatEther(BigInt(slash.toTreasury)),
              formatEther(BigInt(slash.burned)),
            ]),
          ),
        ]),
    ...crashLines(report),
    ...seenTaskLines(report),
    '',
  ]
  return lines.join('\n')
}

/** `3 tasks`, `1 task`. */
function count(items: number, noun: string): string {
  return `${items} ${noun}${items === 1 ? '' : 's'}`
}

/** The Summary section: tasks, disputes, slashes, the jackpot, the money check and the gas, a line each. */
function summaryLines(report: DevnetReport): string[] {
  const {conservation, jackpot} = report
  const settled = report.tasks.filter((task) => task.status === 'Settled')
  const totalGas = (report.history?.gas ?? []).reduce((sum, entry) => sum + BigInt(entry.gas), 0n)
  return [
    '## Summary',
    '',
    `- Tasks: ${report.tasks.length} (${settled.filter((task) => task.verdict === 'accepted').length} settled accepted, ${report.tasks.filter((task) => task.status === 'Expired').length} expired, ${report.tasks.filter((task) => !['Settled', 'Expired'].includes(task.status)).length} open); ${count(report.tasks.reduce((sum, task) => sum + task.rejections.length, 0), 'rejected proof')}, ${count(report.tasks.reduce((sum, task) => sum + task.timeouts, 0), 'training timeout')}.`,
    `- Disputes: ${report.disputes.length === 0 ? 'none' : report.disputes.map((dispute) => `#${dispute.id} on task ${dispute.taskId} ${dispute.outcome} by ${dispute.reason}`).join('; ')}.`,
    `- Slashes: ${report.slashes.length === 0 ? 'none' : report.slashes.map((slash) => `${slash.account} lost ${formatEther(BigInt(slash.amount))} ETH (task ${slash.taskId})`).join('; ')}.`,
    `- Jackpot: ${formatEther(BigInt(jackpot.before))} -> ${formatEther(BigInt(jackpot.after))} ETH (funded ${formatEther(BigInt(jackpot.funded))}, tax ${formatEther(BigInt(jackpot.taxIn))}, paid ${formatEther(BigInt(jackpot.paidOut))}).`,
    report.partial && !report.partial.chainRead
      ? '- Money: not checked (the chain was gone).'
      : conservation.ok
      ? `- Money conserved to the wei: gas fees ${formatEther(BigInt(conservation.gasFees))} ETH, burned ${formatEther(BigInt(conservation.burned))} ETH.`
      : `- **Money NOT conserved**: before ${conservation.totalBefore} wei, after ${conservation.totalAfter} + fees ${conservation.gasFees}.`,
    ...(report.history ? [`- Gas: ${formatGas(totalGas)} over blocks ${report.history.fromBlock}-${report.history.toBlock}.`] : []),
    '',
  ]
}

/** The price over the run: the chart, its start, end and range (and a supply shock), and every solver's offer. */
function priceLines(report: DevnetReport, chart: string): string[] {
  return [
    '## Price over time',
    '',
    chart,
    '',
    ...(report.market.series.length === 0
      ? ['No price recorded.']
      : [
          `Start ${gwei(report.market.price.start)}, end ${gwei(report.market.price.end)}, min ${gwei(report.market.price.min)}, max ${gwei(report.market.price.max)} gwei per work unit.` +
            (report.market.shock ? ` Supply shock: ${report.market.shock.solver} left at ${report.market.shock.seconds} s; the price then ${report.market.shock.rose ? `rose to ${gwei(report.market.shock.maxAfter)} gwei` : 'did not rise'}.` : ''),
        ]),
    ...(report.market.offers.length === 0
      ? []
      : [
          '',
          table(
            ['solver', 'ask (gwei/WU)', 'capacity', 'joins', 'leaves', 'listed (+) / withdrawn (-) at s'],
            report.market.offers.map((offer) => [
              offer.solver,
              gwei(offer.ask),
              String(offer.capacity),
              String(offer.joins),
              String(offer.leaves),
              offer.events.map((event) => `${event.type === 'listed' ? '+' : '-'}${event.seconds}`).join(' '),
            ]),
          ),
        ]),
    '',
  ]
}

/** Every committed proof's curve: the chart and a row per proof (an older report's chart says it has none). */
function trainingLines(report: DevnetReport, chart: string): string[] {
  const curves = report.history?.curves
  return [
    '## Training curves',
    '',
    chart,
    '',
    ...(curves === undefined
      ? ['This report was written before training curves were recorded.']
      : [
          table([...trainingColumns], curves.map(trainingRow)),
          '',
          "Each checkpoint of each committed proof, scored on the job's test split. A ring marks a checkpoint a verifier's replay ended at: green if the replay matched the proof, red if not.",
        ]),
    '',
  ]
}

/** The actors' deaths and restarts (docs/reliability.md): a section only when there were any. */
function crashLines(report: DevnetReport): string[] {
  const crashes = report.crashes ?? []
  if (crashes.length === 0) return []
  const rows = crashes.map((crash) => [crash.actor, `${crash.atSeconds.toFixed(1)} s`, crash.cause, crash.how, crash.restartedAfterMs === null ? 'given up' : `after ${crash.restartedAfterMs / 1000} s`])
  return ['', '## Crashes and restarts', '', table(['actor', 'at', 'cause', 'how it died', 'restarted'], rows)]
}

/** With the chain gone, the last word of an actor on each task is all the report has. */
function seenTaskLines(report: DevnetReport): string[] {
  const seen = report.partial?.seenTasks ?? []
  if (seen.length === 0) return []
  return ['', '## Tasks as the actors last reported them', '', table(['task', 'actor', 'last event'], seen.map((entry) => [entry.taskId, entry.actor, entry.event]))]
}

/** A markdown table; cells are escaped so a `|` in a name cannot break it. */
/** The Jobs section: one row per scenario job, its wall time and any speed-up over the job it is compared with. */
/** Scale mode's figures (docs/scenarios.md, "Crowds"). */
function crowdLines(report: DevnetReport): string[] {
  if (!report.crowd) return []
  return ['## Crowd', '', table(['figure', 'value'], crowdFigures(report.crowd)), '']
}

function jobsTable(report: DevnetReport): string[] {
  if (!report.jobs?.length) return []
  const fixed = (value: number | null, digits: number) => (value === null ? '-' : value.toFixed(digits))
  const rows = report.jobs.map((job) => [
    String(job.index),
    escapeText(job.file),
    job.rounds === undefined ? String(job.tasks) : `${job.tasks} (${job.rounds.length} rounds x ${job.shards} shards)`,
    job.verdict ?? '-',
    fixed(job.testAccuracy, 4),
    fixed(job.wallSeconds, 1),
    job.speedup ? `${fixed(job.speedup.ratio, 2)}x over job ${job.speedup.over}` : '-',
  ])
  return ['## Jobs', '', table(['job', 'file', 'tasks', 'verdict', 'test acc', 'wall s', 'speed-up'], rows), '']
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '(none)'
  const line = (cells: readonly string[]) => `| ${cells.map(escapeText).join(' | ')} |`
  return [line(header), `|${header.map(() => ' --- ').join('|')}|`, ...rows.map(line)].join('\n')
}

function escapeText(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}

function gwei(wei: string): string {
  return formatUnits(BigInt(wei), 9)
}

function signed(wei: bigint): string {
  return `${wei >= 0n ? '+' : ''}${formatEther(wei)}`
}

/** How many whistleblowers were active and how often they joined or left (their payout rule, docs/economics.md). */
function whistleblowerSummary(report: DevnetReport): string {
  const points = report.history?.whistleblowers
  if (points === undefined) return 'Not recorded in this report.'
  if (points.length === 0) return 'No whistleblower joined or left.'
  const joins = points.filter((point) => point.joined).length
  const most = Math.max(...points.map((point) => point.active))
  return `${joins} join(s), ${points.length - joins} leave(s); at most ${most} active, ${points.at(-1)?.active ?? 0} at the end. Each one joins while its share of the expected jackpot covers its re-check cost and leaves when it does not (docs/economics.md).`
}
