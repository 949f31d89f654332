import type {ComparedRun, Comparison} from './compareRuns.js'
import {figureLabel} from './figureLabel.js'

/** compare.md: which runs, the figures side by side with B - A, and the overlaid charts (charts/ beside it). */
export function renderComparison(comparison: Comparison, charts: readonly {file: string; title: string}[]): string {
  const {a, b} = comparison
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ')
  const row = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`
  return [
    `# Devnet runs compared: ${a.scenario} vs ${b.scenario}`,
    '',
    `- A: \`${a.id}\` (${a.dir})${describeParameters(a)}`,
    `- B: \`${b.id}\` (${b.dir})${describeParameters(b)}`,
    '',
    'Amounts in ETH or gwei, gas in gas units, times in seconds; detection is the share of decided plays caught.',
    '',
    row(['figure', 'A', 'B', 'B - A']),
    '| --- | --- | --- | --- |',
    ...comparison.figures.map((figure) => row([figureLabel(figure), figure.text.a, figure.text.b, figure.text.difference])),
    '',
    ...charts.flatMap((chart) => [`![${chart.title}](charts/${chart.file})`, '']),
  ].join('\n')
}

/** How `devnet up` ran it, when run.json says: `; backend wasm, until settled, timeout 600 s`. */
function describeParameters(run: ComparedRun): string {
  const {parameters} = run
  if (!parameters) return ''
  const parts = [`backend ${parameters.backend ?? 'default'}`, parameters.untilSettled ? 'until settled' : 'open-ended', `timeout ${parameters.timeoutSeconds} s`]
  return `; ${parts.join(', ')}`
}
