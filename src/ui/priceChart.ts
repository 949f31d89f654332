import asciichart from 'asciichart'

export type PriceChartOptions = {
  /** Columns of the plot (default 72). */
  width?: number
  /** Rows of the plot (default 10). */
  height?: number
  /** Solvers joining (^) and leaving (v), drawn on a row under the plot at their time. */
  marks?: readonly {seconds: number; mark: 'join' | 'leave'}[]
}

/**
 * The market price over the run as an ASCII chart (asciichart, no colours, so a pipe or CI log shows the same
 * as a terminal). The price is a step function of time: each column shows the last price known at its time.
 * Prices are wei per work unit, drawn in gwei. Under the plot: the time axis in chain seconds, and a row with
 * a ^ where a solver listed its offer and a v where one withdrew it.
 */
export function renderPriceChart(points: readonly {seconds: number; price: bigint}[], options: PriceChartOptions = {}): string {
  if (points.length === 0) return '(no price recorded)'
  const width = options.width ?? 72
  const start = points[0]!.seconds
  const end = Math.max(points.at(-1)!.seconds, start + 1)
  const columns = Math.max(2, Math.min(width, end - start + 1))
  const timeOf = (column: number) => start + ((end - start) * column) / (columns - 1)
  const values: number[] = []
  let next = 0
  let current = points[0]!.price
  for (let column = 0; column < columns; column++) {
    while (next < points.length && points[next]!.seconds <= timeOf(column)) current = points[next++]!.price
    values.push(Number(current) / 1e9)
  }
  const min = Math.min(...values)
  const max = Math.max(...values)
  const label = (value: number) => value.toFixed(value >= 100 ? 0 : 2).padStart(9)
  const plot = asciichart.plot(values, {
    height: options.height ?? 10,
    // A flat line still gets a visible band around it.
    ...(max === min ? {min: min * 0.9, max: max * 1.1} : {}),
    format: (value) => label(value),
  })
  const rows = plot.split('\n')
  // asciichart draws column 0 of the data on the axis tick itself (the ┤ or ┼ after the label).
  const offset = Math.max(0, (rows[0] ?? '').search(/[┤┼]/))
  const axis = `${' '.repeat(offset)}└${'─'.repeat(columns - 1)}`
  const first = `${start} s`
  const last = `${end} s`
  const times = `${' '.repeat(offset)}${first}${' '.repeat(Math.max(1, columns - first.length - last.length))}${last}`
  const row = Array.from({length: columns}, () => ' ')
  for (const {seconds, mark} of options.marks ?? []) {
    const column = Math.round(((seconds - start) / (end - start)) * (columns - 1))
    if (column < 0 || column >= columns) continue
    const symbol = mark === 'join' ? '^' : 'v'
    row[column] = row[column] === ' ' || row[column] === symbol ? symbol : '*'
  }
  const marks = options.marks && options.marks.length > 0 ? [`${' '.repeat(offset)}${row.join('').trimEnd()}`, `${' '.repeat(offset)}^ a solver listed its offer (joined), v one withdrew it (left)`] : []
  return [...rows, axis, times, ...marks].join('\n')
}
