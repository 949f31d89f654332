import type {Hex} from 'viem'

import {runtimeIdString} from '../ml/backend/index.js'
import {type ProofManifest, replaySegment, RuntimeMismatchError, type SegmentReplay} from '../pol/index.js'
import type {Connection} from '../protocol/connect.js'
import {loadTaskSpec} from '../protocol/loadTaskSpec.js'
import type {Task} from '../protocol/types.js'
import {checkEveryRecheckSegmentUpTo} from '../economics/recheckLimit.js'

/** A proof with at most this many segments is re-checked whole; a longer one in `segmentsToCheck` random segments (the economics counts the same). */
export const checkEverySegmentUpTo = checkEveryRecheckSegmentUpTo

export type RecheckResult = {
  taskId: bigint
  /** The segments replayed, in the order they were. */
  checked: number[]
  /** The first segment whose replay did not hash to the committed end checkpoint. */
  mismatch?: {segment: number; expected: Hex; actual: Hex} | undefined
  /** Set when nothing could be replayed (the proof's runtime is not available here). */
  skipped?: string | undefined
}

export type RecheckOptions = {
  /** Segments replayed when the proof has more than {@link checkEverySegmentUpTo} (default 2). */
  segmentsToCheck?: number | undefined
  onSegment?: ((replay: SegmentReplay) => void) | undefined
  signal?: AbortSignal | undefined
  /** Picks random segments (default Math.random): tests pass a seeded one. */
  random?: (() => number) | undefined
}

/**
 * A whistleblower's second look at a verified proof (docs/disputes.md, "Forced errors, the jackpot and
 * whistleblowers"): replays segments in exact mode on the proof's own runtime, from the committed start
 * checkpoint, and stops at the first whose end hash differs from the committed one. Every segment when the
 * proof has at most 8, else `segmentsToCheck` distinct random ones.
 */
export async function recheckTask(connection: Pick<Connection, 'store'>, task: Pick<Task, 'id' | 'specHash' | 'manifestHash'>, options: RecheckOptions = {}): Promise<RecheckResult> {
  const spec = await loadTaskSpec(connection, task)
  const manifest = await connection.store.getJson<ProofManifest>(task.manifestHash)
  const segmentCount = manifest.checkpoints.length - 1
  const segments = segmentCount <= checkEverySegmentUpTo ? [...Array(segmentCount).keys()] : sample(segmentCount, options.segmentsToCheck ?? 2, options.random ?? Math.random)
  const checked: number[] = []
  for (const segment of segments) {
    if (options.signal?.aborted) break
    let replay: SegmentReplay
    try {
      replay = await replaySegment({spec, store: connection.store, manifest, segment, mode: 'exact'})
    } catch (error) {
      if (error instanceof RuntimeMismatchError) return {taskId: task.id, checked, skipped: `cannot replay ${runtimeIdString(manifest.runtime)} bit for bit here`}
      throw error
    }
    checked.push(segment)
    options.onSegment?.(replay)
    if (!replay.hashMatch) return {taskId: task.id, checked, mismatch: {segment, expected: replay.expected, actual: replay.actual}}
  }
  return {taskId: task.id, checked}
}

/** `k` distinct integers of [0, n), in random order (a partial Fisher-Yates shuffle). */
function sample(n: number, k: number, random: () => number): number[] {
  const pool = [...Array(n).keys()]
  const count = Math.min(Math.max(1, k), n)
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (n - i))
    ;[pool[i], pool[j]] = [pool[j]!, pool[i]!]
  }
  return pool.slice(0, count)
}
