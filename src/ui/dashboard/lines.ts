/** The dashboard's rows: styled text segments, each row exactly as wide as the terminal. */

export type Style = {color?: string; backgroundColor?: string; bold?: boolean; dimColor?: boolean; inverse?: boolean}
export type Segment = {text: string} & Style
/** One terminal row: segments whose texts add up to exactly the row's width. */
export type Line = Segment[]

export type TerminalSize = {columns: number; rows: number}

/** Every row's texts joined, e.g. for tests and logs. */
export function lineText(line: Line): string {
  return line.map((segment) => segment.text).join('')
}

export function plain(text: string, width: number, style: Style = {}): Line {
  return [{text: fit(text, width), ...style}]
}

/** A section's title, then what it holds in a few words. */
export function sectionLine(title: string, detail: string, width: number): Line {
  return [{text: title, bold: true, color: 'cyan'}, {text: fit(`  ${detail}`, width - title.length), dimColor: true}]
}

/** Exactly `width` characters: padded, or cut with an ellipsis. Control characters never reach the terminal. */
export function fit(text: string, width: number): string {
  if (width <= 0) return ''
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
  if (clean.length <= width) return clean.padEnd(width)
  return `${clean.slice(0, width - 1)}…`
}

export function fitStart(text: string, width: number): string {
  return text.length <= width ? text.padStart(width) : fit(text, width)
}

