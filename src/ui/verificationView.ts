import type {Hex} from 'viem'

import type {SegmentReplay, VerificationReport} from '../pol/index.js'

export type BundleVerificationView = {
  accepted: boolean
  inconclusive: boolean
  reason: string | undefined
  randomness: Hex
  seed: string | undefined
  checks: VerificationReport['checks']
  selectedSegments: number[]
  segments: SegmentReplay[]
  seconds: number
}

export function bundleVerificationView(report: VerificationReport, randomness: Hex, seed: string | undefined): BundleVerificationView {
  return {
    accepted: report.accepted,
    inconclusive: report.inconclusive,
    reason: report.reason,
    randomness,
    seed,
    checks: report.checks,
    selectedSegments: report.selectedSegments,
    segments: report.segments,
    seconds: report.seconds,
  }
}

export const segmentHeader = ['SEGMENT', 'STEPS', 'HASH', 'L2', 'L∞', 'COSINE', 'RESULT', 'SECONDS']

/** One checked segment: whether the hashes matched, its whole-vector distances, and the verdict in its mode. */
export function segmentRow(replay: SegmentReplay): string[] {
  const {whole} = replay.distances
  return [
    String(replay.segment),
    `${replay.startStep}-${replay.endStep}`,
    replay.hashMatch ? 'same' : 'differs',
    whole.l2.toExponential(2),
    whole.linf.toExponential(2),
    whole.cosine.toExponential(2),
    replay.match ? 'pass' : `FAIL${replay.violations?.length ? ` (${replay.violations[0]})` : ''}`,
    replay.seconds.toFixed(2),
  ]
}
