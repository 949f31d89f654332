import type {Comparison} from './compareRuns.js'

/** compare.md: which runs, the figures side by side with B - A, and the overlaid charts (charts/ beside it). */
export function renderComparison(comparison: Comparison, charts: readonly {file: string; title: string}[]): string {
  const {a, b} = comparison
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ')
  const row = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`
  return [
    `# Devnet runs compared: ${a.scenario} vs ${b.scenario}`,
    '',
    `- A: \`${a.id}\` (${a.dir})`,
    `- B: \`${b.id}\` (${b.dir})`,
    '',
    'Amounts in ETH or gwei, gas in gas units, times in seconds; detection is the share of decided plays caught.',
    '',
    row(['figure', 'A', 'B', 'B - A']),
    '| --- | --- | --- | --- |',
    ...comparison.figures.map((figure) => row([unitLabel(figure.name, figure.unit), figure.text.a, figure.text.b, figure.text.difference])),
    '',
    ...charts.flatMap((chart) => [`![${chart.title}](charts/${chart.file})`, '']),
  ].join('\n')
}

/** `stake slashed (ETH)`; counts, yes/no and percentages say their unit in the value already. */
export function unitLabel(name: string, unit: string): string {
  return unit === 'count' || unit === 'yes/no' || unit === '% caught' ? name : `${name} (${unit})`
}
