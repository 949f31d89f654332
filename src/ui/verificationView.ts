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

export function segmentRow(replay: SegmentReplay): string[] {
  return [
    String(replay.segment),
    `${replay.startStep}-${replay.endStep}`,
    `${replay.expected.slice(0, 12)}…`,
    `${replay.actual.slice(0, 12)}…`,
    replay.match ? 'pass' : 'FAIL',
    replay.seconds.toFixed(2),
  ]
}
