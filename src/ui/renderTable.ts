import Table from 'cli-table3'
import stringWidth from 'string-width'

export type RenderTableOptions = {
  /**
   * Columns the table may take: wider columns wrap at word boundaries to fit. Default: the terminal's width when
   * stdout is one, else none (Infinity), so a pipe or a log (and a script reading it) gets one line per row.
   */
  maxWidth?: number | undefined
}

/** Two spaces between columns and no rules or borders, like `docker ps`: rows stay greppable line by line. */
const GAP = '  '
const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: GAP,
}
/** Narrower than this, a column is more ellipsis than text. */
const MIN_COLUMN = 6

/**
 * A text table (cli-table3): a header row when `header` is not empty, then one row per entry, columns as wide as
 * their widest cell (by terminal width, so wide characters and escape codes do not misalign them).
 */
export function renderTable(header: string[], rows: string[][], options: RenderTableOptions = {}): string {
  const maxWidth = options.maxWidth ?? (process.stdout.isTTY && process.stdout.columns ? process.stdout.columns : Number.POSITIVE_INFINITY)
  const all = header.length > 0 ? [header, ...rows] : rows
  const colWidths = fitColumns(all, maxWidth)
  const fitted = colWidths ? rows.map((row) => row.map((cell, column) => breakLongWords(cell, colWidths[column]!))) : rows
  const table = new Table({
    head: header,
    chars: NO_BORDERS,
    // No colours: cli-table3 paints the header red and the borders grey by default.
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true},
    ...(colWidths ? {colWidths, wordWrap: true, wrapOnWordBoundary: true} : {}),
  })
  table.push(...fitted)
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
}

/**
 * Column widths that fit `maxWidth`, or undefined when the table fits as it is. The widest column gives way first:
 * down to its longest word (so wrapping splits no word), then, if the table is still too wide, to MIN_COLUMN.
 */
function fitColumns(rows: string[][], maxWidth: number): number[] | undefined {
  const columns = Math.max(0, ...rows.map((row) => row.length))
  const cells = (column: number) => rows.map((row) => row[column] ?? '')
  const widths = Array.from({length: columns}, (_, column) => Math.max(1, ...cells(column).map((cell) => stringWidth(cell))))
  const budget = maxWidth - GAP.length * (columns - 1)
  const total = () => widths.reduce((sum, width) => sum + width, 0)
  if (total() <= budget) return undefined
  const longestWord = widths.map((_, column) => Math.max(1, ...cells(column).flatMap((cell) => cell.split(/\s+/)).map((word) => stringWidth(word))))
  for (const floor of [(column: number) => Math.max(MIN_COLUMN, longestWord[column]!), () => MIN_COLUMN]) {
    while (total() > budget) {
      const widest = widths.reduce((best, width, column) => (width - floor(column) > widths[best]! - floor(best) ? column : best), 0)
      if (widths[widest]! <= floor(widest)) break
      widths[widest] = widths[widest]! - 1
    }
  }
  return widths
}

/**
 * A word wider than its column (a hash, an address) split over lines: cli-table3 would cut it short with an
 * ellipsis, and a value on a terminal must stay whole enough to copy.
 */
function breakLongWords(cell: string, width: number): string {
  return cell
    .split('\n')
    .map((line) =>
      line
        .split(' ')
        .map((word) => {
          if (stringWidth(word) <= width) return word
          const pieces = ['']
          for (const char of word) {
            if (stringWidth(pieces.at(-1)! + char) > width) pieces.push('')
            pieces[pieces.length - 1] += char
          }
          return pieces.join('\n')
        })
        .join(' '),
    )
    .join('\n')
}
