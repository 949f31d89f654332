const bars = '▁▂▃▄▅▆▇█'

/**
 * A one-row chart of `values` in block characters, low to high, the newest last; at most `width` of them
 * (the newest). A flat series is drawn at mid height.
 */
export function sparkline(values: readonly number[], width: number): string {
  const shown = values.slice(-Math.max(0, width))
  if (shown.length === 0) return ''
  const min = Math.min(...shown)
  const max = Math.max(...shown)
  return shown.map((value) => bars[max === min ? 3 : Math.round(((value - min) / (max - min)) * (bars.length - 1))]).join('')
}
