import {sweepMetrics} from './cellMetrics.js'
import type {SweepChart} from './sweepCharts.js'
import type {MetricStat, SweepSummary} from './summarizeSweep.js'

/** sweep.md: how to run it again, the table (mean and min-max over repeats), the charts and every cell's run. */
export function renderSweep(summary: SweepSummary, options: {id: string; command: string; charts: readonly SweepChart[]}): string {
  const paths = summary.axes.map((axis) => axis.path)
  const ran = summary.cells.filter((cell) => cell.metrics !== null).length
  const lines = [
    `# Sweep: ${summary.scenario} (${options.id})`,
    '',
    `${summary.axes.map((axis) => `${axis.path} in {${axis.values.join(', ')}}`).join(' × ')}, ${summary.repeat} repeat${summary.repeat === 1 ? '' : 's'} each: ${summary.cells.length} runs, ${ran} with a full report. Seed ${summary.seed}; repeat r of every combination runs with the same seed.`,
    '',
    `Run again (the same seeds): \`${options.command}\``,
    '',
    '## Figures',
    '',
    'Mean over the repeats, with min-max when they differ.',
    '',
    row([...paths, 'runs', ...sweepMetrics.map((metric) => `${metric.label} (${metric.unit})`)]),
    row([...paths, 'runs', ...sweepMetrics].map(() => '---')),
    ...summary.groups.map((group) => row([...paths.map((path) => String(group.settings[path])), String(group.runs), ...sweepMetrics.map((metric) => shown(group.metrics[metric.key]))])),
    '',
    ...sweepMetrics.map((metric) => `- ${metric.label}: ${metric.about}.`),
    '',
    '## Charts',
    '',
    ...options.charts.flatMap((chart) => [`![${chart.title}](charts/${chart.file})`, '']),
    '## Runs',
    '',
    'Each is a run folder: `gensyn devnet report RUN` renders it, `gensyn devnet report --compare RUN RUN` sets two side by side.',
    '',
    row(['cell', ...paths, 'seed', 'result', 'run']),
    row(['---', ...paths.map(() => '---'), '---', '---', '---']),
    ...summary.cells.map(({cell, result, reason, runId}) =>
      row([cell.id, ...paths.map((path) => String(cell.settings[path])), String(cell.seed), reason === null || result === 'ok' ? result : `${result}: ${reason}`, `\`${runId}\``]),
    ),
    '',
  ]
  return lines.join('\n')
}

function shown(stat: MetricStat | null): string {
  if (!stat) return '-'
  const format = (value: number) => (Math.abs(value) >= 1000 ? value.toFixed(0) : Number(value.toPrecision(4)).toString())
  return stat.min === stat.max ? format(stat.mean) : `${format(stat.mean)} (${format(stat.min)} to ${format(stat.max)})`
}

function row(cells: readonly string[]): string {
  return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`
}
