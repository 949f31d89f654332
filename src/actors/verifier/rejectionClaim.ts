import type {Hex} from 'viem'

import type {JobSpec} from '../../ml/spec/index.js'
import {taskStepRange} from '../../ml/train/index.js'
import {type ProofManifest, replaySegment, selectSegments, type Thresholds, type VerificationReport} from '../../pol/index.js'
import type {Task} from '../../protocol/types.js'
import {canonicalJsonBytes, sha256Hex} from '../../store/index.js'
import {readManifest} from './readManifest.js'
import type {VerifierRun} from './types.js'

/**
 * What a rejection claims on chain: the segment that failed and the end hash the replay gave, which the
 * solver may contest in the pinpoint game. The first failed replay when there is one. A proof that broke the
 * early-stop rule (every replay matched) names the last segment and its replay (docs/market.md, "Known
 * limits": the game cannot see the rule). A proof rejected by an earlier check (initial weights, schedule) is
 * replayed until a sampled segment fails, so the claim is one the game can decide; only when every replay
 * matches does it name segment 0 with the report's own hash (docs/adversaries.md: such a rejection is right,
 * but the game cannot uphold it).
 */
export async function rejectionClaim(
  run: VerifierRun,
  task: Task,
  spec: JobSpec,
  randomness: Hex,
  report: VerificationReport,
  thresholds: Thresholds | undefined,
): Promise<{segment: number; replayHash: Hex}> {
  const failed = report.segments.find((segment) => !segment.match)
  if (failed) return {segment: failed.segment, replayHash: failed.actual}
  const manifest = await readManifest(run.connection, task.manifestHash)
  if (!manifest) return fallbackClaim(report)
  // The on-chain schedule is the one the game plays: segment s spans [s * interval, min((s + 1) * interval, totalSteps)]
  // of the task's steps, which are the job's steps from the task's range start on (a split task's are not from 0).
  const start = taskStepRange(spec).start
  const onchain = manifest.checkpoints.map((checkpoint, index) => ({
    hash: checkpoint.hash,
    step: start + (index === manifest.checkpoints.length - 1 ? Number(task.totalSteps) : Math.min(index * Number(task.checkpointInterval), Number(task.totalSteps))),
  }))
  const relabelled: ProofManifest = {...manifest, checkpoints: onchain}
  const segmentCount = onchain.length - 1
  const replay = (segment: number) => replaySegment({spec, store: run.connection.store, manifest: relabelled, segment, backend: run.options.backend, mode: run.mode, thresholds})
  if (report.checks.stopRule === 'fail' && segmentCount >= 1) {
    const last = segmentCount - 1
    const replayed = report.segments.find((segment) => segment.segment === last)
    if (replayed) return {segment: last, replayHash: replayed.actual}
    try {
      return {segment: last, replayHash: (await replay(last)).actual}
    } catch {
      return fallbackClaim(report)
    }
  }
  const sampled = segmentCount < 1 ? [] : selectSegments({randomness, segmentCount, count: Math.min(spec.verification.segments, segmentCount)})
  const candidates = [...new Set([...sampled, 0, segmentCount - 1])].filter((segment) => segment >= 0 && segment < segmentCount)
  for (const segment of candidates) {
    try {
      const replayed = await replay(segment)
      if (!replayed.match) return {segment, replayHash: replayed.actual}
    } catch {
      // A segment that cannot be replayed (missing or foreign checkpoint) gives no hash to claim.
    }
  }
  return fallbackClaim(report)
}

/** A non-zero hash that names the verification report when no replay gives one: sha256 of its canonical JSON. */
function fallbackClaim(report: VerificationReport): {segment: number; replayHash: Hex} {
  return {segment: 0, replayHash: sha256Hex(canonicalJsonBytes(report))}
}
