import type {SegmentSpread} from './segmentSpread.js'

/** `2 x its spread to cpu`: the margin and the other runtimes' backends, for a report's one line. */
export function describeSpread(spread: SegmentSpread): string {
  return `${spread.margin} x its spread to ${spread.runtimes.map((runtime) => runtime.split(' ')[0]).join(', ')}`
}
