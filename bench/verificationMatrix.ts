// Helpers of bench/verification.ts: the per-task randomness and seeds, the plan formula applied to a
// proof's faked segments, and the plain aligned tables it prints. No training here.
import {createHash} from 'node:crypto'
import type {Hex} from 'viem'

import type {StrategyName} from '../src/adversary/index.js'
import {detectionProbability} from '../src/pol/index.js'

/** sha256 of a label, as the 0x-hex randomness a verifier would take from a block hash after the commit. */
export function randomnessFor(label: string): Hex {
  return `0x${createHash('sha256').update(label).digest('hex')}` as Hex
}

/** A u32 drawn from a label (the cheater's secret seed of one task). */
export function seedFor(label: string): number {
  return createHash('sha256').update(label).digest().readUInt32BE(0)
}

/**
 * The exact chance that a plan of `sampled` segments (the final one always, the rest uniform) replays one
 * of `faked` (docs/verification.md, section 7). A proof that fakes the final segment is always caught;
 * one that fakes nothing never is.
 */
export function planDetection(segmentCount: number, sampled: number, faked: readonly number[]): number {
  if (faked.length === 0) return 0
  if (faked.includes(segmentCount - 1)) return 1
  return detectionProbability({segmentCount, sampled, faked: faked.length})
}

/** Steps a plan of `sampled` segments replays: the final segment plus the (sampled - 1) longest others (all equal here but the final). */
export function replayedSteps(schedule: readonly number[], sampled: number): number {
  const lengths = schedule.slice(1).map((step, i) => step - (schedule[i] as number))
  const final = lengths.pop() ?? 0
  lengths.sort((a, b) => b - a)
  return final + lengths.slice(0, Math.max(0, sampled - 1)).reduce((a, b) => a + b, 0)
}

export const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

export const mean = (values: readonly number[]): number => (values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length)

export const percent = (x: number, digits = 1): string => (Number.isFinite(x) ? `${(100 * x).toFixed(digits)}%` : 'n/a')

/** "rejected/total rate", e.g. "4/4 100%". */
export const rate = (rejected: number, decided: number): string => (decided === 0 ? 'n/a' : `${rejected}/${decided} ${percent(rejected / decided, 0)}`)

/** Plain aligned table: the first column left-aligned, the rest right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)))
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number)))
      .join('  ')
      .trimEnd()
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')
}

/** One verification of one task's proof. */
export type VerificationRecord = {
  job: string
  mode: 'exact' | 'tolerance'
  strategy: StrategyName
  task: number
  trainingSeed: number
  cheaterSeed: number
  /** The runtime the proof was made on, and the one the replays ran on. */
  prover: string
  verifier: string | null
  proofSeconds: number
  computeFraction: number
  fakedSegments: number[]
  /** Segments the plan sampled (s of them). */
  sampled: number
  selectedSegments: number[]
  accepted: boolean
  inconclusive: boolean
  /** The check that failed (rejected), else null. */
  failedCheck: string | null
  reason: string | null
  /** Seconds of the segment replays, and of the whole verifyProof call (every check). */
  replaySeconds: number
  verifySeconds: number
  replayedSteps: number
  /** Exact chance this plan catches this proof (from its faked segments), for comparison with the draw. */
  planDetection: number
}

export type Cell = {rejected: number; accepted: number; inconclusive: number; total: number}

export function cellOf(records: readonly VerificationRecord[]): Cell {
  const rejected = records.filter((r) => !r.accepted && !r.inconclusive).length
  const accepted = records.filter((r) => r.accepted).length
  const inconclusive = records.filter((r) => r.inconclusive).length
  return {rejected, accepted, inconclusive, total: records.length}
}

/** Detection (or false-positive) rate over decided reports: inconclusive ones count as neither. */
export const cellRate = (c: Cell): number => (c.rejected + c.accepted === 0 ? Number.NaN : c.rejected / (c.rejected + c.accepted))

export const cellText = (c: Cell): string => `${rate(c.rejected, c.rejected + c.accepted)}${c.inconclusive > 0 ? ` +${c.inconclusive} inc` : ''}`
