import type {Hex} from 'viem'

import {type BackendChoice, runtimeIdString, sameRuntime, selectBackend} from '../ml/backend/index.js'
import type {JobSpec} from '../ml/spec/index.js'
import {type ProofManifest, replaySegment, RuntimeMismatchError, type SegmentReplay, type Thresholds} from '../pol/index.js'
import type {Connection} from '../protocol/connect.js'
import {loadTaskSpec} from '../protocol/loadTaskSpec.js'
import {pinnedThresholds} from '../protocol/pinnedThresholds.js'
import type {Task} from '../protocol/types.js'
import {checkEveryRecheckSegmentUpTo} from '../economics/recheckLimit.js'

/** A proof with at most this many segments is re-checked whole; a longer one in `segmentsToCheck` random segments (the economics counts the same). */
export const checkEverySegmentUpTo = checkEveryRecheckSegmentUpTo

export type RecheckResult = {
  taskId: bigint
  /** The segments replayed, in the order they were. */
  checked: number[]
  /**
   * The first segment whose replay did not hash to the committed end checkpoint (exact), or whose committed end
   * lies beyond the job's pinned thresholds from the replay (tolerance, with the limits it broke). `actual` is the
   * replay's own end hash: the claim a challenge stands behind.
   */
  mismatch?: {segment: number; expected: Hex; actual: Hex; violations?: string[] | undefined} | undefined
  /** How the segments were judged: exact on the proof's runtime, or within thresholds on `tolerance.backend`. */
  mode: 'exact' | 'tolerance'
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
  /**
   * Replay on `backend` instead of the proof's runtime, as a tolerance-mode verifier does: a proof made on another
   * runtime (a GPU's, say) is judged within the thresholds its job pins for the two runtimes, and skipped when it
   * pins none. Without it, a proof whose runtime is not here is skipped.
   */
  tolerance?: {backend: BackendChoice} | undefined
}

/** How the segments of one proof are replayed: the mode and, in tolerance mode, the backend and the limits. */
type ReplayPlan = {mode: 'exact'} | {mode: 'tolerance'; backend: BackendChoice; thresholds: Thresholds}

/**
 * A whistleblower's second look at a verified proof (docs/disputes.md, "Forced errors, the jackpot and
 * whistleblowers"): replays segments from the committed start checkpoint and stops at the first whose end does not
 * hold. Without `tolerance`, on the proof's own runtime, bit for bit (a proof whose runtime is not here is
 * skipped). With it, on `tolerance.backend`, as a tolerance-mode verifier: bit for bit when the proof was made
 * there, else within the thresholds its job pins for the two runtimes. Every segment when the proof has at most
 * 8, else `segmentsToCheck` distinct random ones.
 */
export async function recheckTask(connection: Pick<Connection, 'store'>, task: Pick<Task, 'id' | 'specHash' | 'manifestHash'>, options: RecheckOptions = {}): Promise<RecheckResult> {
  const spec = await loadTaskSpec(connection, task)
  const manifest = await connection.store.getJson<ProofManifest>(task.manifestHash)
  const plan = options.tolerance ? await tolerancePlan(connection, spec, manifest, options.tolerance.backend) : {mode: 'exact' as const}
  if ('skipped' in plan) return {taskId: task.id, checked: [], mode: 'tolerance', skipped: plan.skipped}
  const segmentCount = manifest.checkpoints.length - 1
  const segments = segmentCount <= checkEverySegmentUpTo ? [...Array(segmentCount).keys()] : sample(segmentCount, options.segmentsToCheck ?? 2, options.random ?? Math.random)
  const checked: number[] = []
  for (const segment of segments) {
    if (options.signal?.aborted) break
    let replay: SegmentReplay
    try {
      replay = await replaySegment({spec, store: connection.store, manifest, segment, ...plan})
    } catch (error) {
      if (error instanceof RuntimeMismatchError) return {taskId: task.id, checked, mode: plan.mode, skipped: `cannot replay ${runtimeIdString(manifest.runtime)} bit for bit here`}
      throw error
    }
    checked.push(segment)
    options.onSegment?.(replay)
    if (!replay.match) return {taskId: task.id, checked, mode: plan.mode, mismatch: {segment, expected: replay.expected, actual: replay.actual, violations: replay.violations}}
  }
  return {taskId: task.id, checked, mode: plan.mode}
}

/**
 * How a tolerance re-check on `backend` judges this proof: bit for bit when it was made on that very runtime,
 * else by the thresholds its job pins for the two runtimes, or skipped (with why) when it pins none.
 */
async function tolerancePlan(connection: Pick<Connection, 'store'>, spec: JobSpec, manifest: ProofManifest, backend: BackendChoice): Promise<ReplayPlan | {skipped: string}> {
  const own = await selectBackend(backend)
  if (sameRuntime(own, manifest.runtime)) return {mode: 'exact'}
  const {pinned, unreadable} = await pinnedThresholds(connection, {spec, runtimes: [manifest.runtime, own]})
  if (pinned) return {mode: 'tolerance', backend, thresholds: pinned.thresholds}
  // As a verifier warns of them: a pin the store could not give is why a job that pins the pair looks unpinned.
  const passedOver = unreadable.map((pin) => `; pinned profile ${pin.profileHash} passed over: ${pin.reason}`).join('')
  return {skipped: `the job pins no thresholds for ${runtimeIdString(manifest.runtime)} against ${runtimeIdString(own)}, this re-check's runtime${passedOver}`}
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
