import type {Hex} from 'viem'

import type {SegmentReplay, VerificationReport} from '../pol/index.js'
import {describeSpread} from '../pol/sensitivity/describeSpread.js'

export type BundleVerificationView = {
  accepted: boolean
  /**
   * job: the proof was bound to a job (--job or --spec-hash) whose spec hash is `jobSpecHash`;
   * internal-consistency: no job was named, so it was only checked against the spec it carries.
   */
  scope: 'job' | 'internal-consistency'
  jobSpecHash: Hex | undefined
  /** With scope internal-consistency: what the verdict does not stand for, in one line. */
  notice?: string
  inconclusive: boolean
  reason: string | undefined
  randomness: Hex
  seed: string | undefined
  checks: VerificationReport['checks']
  selectedSegments: number[]
  segments: SegmentReplay[]
  seconds: number
}

/** What the verdict stands for when no job was named (printed, and in --json as `notice`). */
export const internalConsistencyNotice =
  'only internal consistency was checked: no --job or --spec-hash named the job, so the proof was checked against the spec it carries, not one you chose'

export function bundleVerificationView(report: VerificationReport, randomness: Hex, seed: string | undefined, jobSpecHash?: Hex): BundleVerificationView {
  return {
    accepted: report.accepted,
    scope: jobSpecHash === undefined ? 'internal-consistency' : 'job',
    jobSpecHash,
    ...(jobSpecHash === undefined ? {notice: internalConsistencyNotice} : {}),
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

/** pass, pass within the spread to other runtimes (a segment beyond the thresholds), or FAIL with the first violation. */
function segmentResult(replay: SegmentReplay): string {
  if (replay.match) return replay.spread ? `pass (within ${describeSpread(replay.spread)})` : 'pass'
  return `FAIL${replay.violations?.length ? ` (${replay.violations[0]})` : ''}`
}

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
    segmentResult(replay),
    replay.seconds.toFixed(2),
  ]
}
