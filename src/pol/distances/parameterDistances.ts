import {checkpointTensors} from '../../ml/checkpoint/encodeCheckpoint.js'
import type {Checkpoint, CheckpointTensor} from '../../ml/checkpoint/types.js'
import {DistanceError} from './errors.js'

/**
 * Distances between two float32 vectors a and b of length n, computed in float64 (every float32 value
 * is exact in a double; sums run sequentially in index order, no compensation):
 *
 * - `l1`     = Σ |a_i - b_i|
 * - `l2`     = sqrt(Σ (a_i - b_i)²)
 * - `linf`   = max |a_i - b_i| (0 for n = 0)
 * - `cosine` = 1 - (a·b) / (‖a‖₂ ‖b‖₂), evaluated as ½ ‖a/‖a‖₂ - b/‖b‖₂‖₂² (the same number; it keeps
 *   its precision for nearly parallel vectors, where 1 - a·b/(‖a‖‖b‖) cancels to rounding noise). 0 when
 *   both vectors are zero, 1 when exactly one is.
 *
 * Distances are always finite (reports are stored as canonical JSON, which has no NaN or Infinity): when
 * either vector holds a NaN or an infinity, the distances are 0 if the two are identical element by
 * element (NaN matching NaN) and otherwise all four are {@link nonFiniteDistance}, which no threshold
 * accepts.
 */
export type Distances = {l1: number; l2: number; linf: number; cosine: number}

/** A decoded checkpoint (the brief's name for {@link Checkpoint}). */
export type DecodedCheckpoint = Checkpoint

/** The distance reported for vectors that differ and hold a NaN or an infinity: Number.MAX_VALUE (finite float32 vectors never reach it). */
export const nonFiniteDistance = Number.MAX_VALUE

export type TensorDistances = {name: string} & Distances

export type CheckpointDistances = {
  /** Over the model's weights concatenated in checkpoint order (optimizer state excluded). */
  whole: Distances
  /**
   * Scale-free: ‖a - b‖₂ / ‖b - start‖₂ over the weight vector, the replay's distance from the committed end
   * relative to the segment's committed update (b = committed end, start = committed start). Set when the start
   * is given; 0 when a equals b, {@link nonFiniteDistance} when the update is zero and a differs.
   */
  update?: number
  /** One entry per tensor in checkpoint order: the weights, then adam's `m/...` and `v/...`. */
  perTensor: TensorDistances[]
}

/** The checkpoint's tensors in order: weights, then adam's m and v (momentum: m). */
export const checkpointTensorList: (checkpoint: Checkpoint) => CheckpointTensor[] = checkpointTensors

/** Accumulates the distances of one or more aligned chunks (a, b) in order. */
class Accumulator {
  private l1 = 0
  private sq = 0
  private linf = 0
  private normA = 0
  private normB = 0
  private readonly chunks: [Float32Array, Float32Array][] = []

  add(a: Float32Array, b: Float32Array): void {
    let {l1, sq, linf, normA, normB} = this
    for (let i = 0; i < a.length; i++) {
      const x = a[i] as number
      const y = b[i] as number
      const d = x - y // exact unless the exponents differ by more than 29 (then correctly rounded)
      const ad = Math.abs(d)
      l1 += ad
      sq += d * d
      linf = Math.max(linf, ad) // propagates NaN (a comparison would drop it)
      normA += x * x
      normB += y * y
    }
    Object.assign(this, {l1, sq, linf, normA, normB})
    this.chunks.push([a, b])
  }

  result(): Distances {
    // float32 inputs cannot overflow these float64 sums, so a non-finite sum means a non-finite input
    if (![this.l1, this.sq, this.linf, this.normA, this.normB].every(Number.isFinite)) {
      const same = this.chunks.every(([a, b]) => a.every((x, i) => x === b[i] || (Number.isNaN(x) && Number.isNaN(b[i] as number))))
      const d = same ? 0 : nonFiniteDistance
      return {l1: d, l2: d, linf: d, cosine: d}
    }
    const na = Math.sqrt(this.normA)
    const nb = Math.sqrt(this.normB)
    let cosine: number
    if (na === 0 && nb === 0) cosine = 0
    else if (na === 0 || nb === 0) cosine = 1
    else {
      let s = 0
      for (const [a, b] of this.chunks)
        for (let i = 0; i < a.length; i++) {
          const d = (a[i] as number) / na - (b[i] as number) / nb
          s += d * d
        }
      cosine = s / 2
    }
    return {l1: this.l1, l2: Math.sqrt(this.sq), linf: this.linf, cosine}
  }
}

/** {@link Distances} between two float32 vectors of the same length. */
export function vectorDistances(a: Float32Array, b: Float32Array): Distances {
  if (a.length !== b.length) throw new DistanceError(`vectors: expected equal lengths, got ${a.length} and ${b.length}`)
  const acc = new Accumulator()
  acc.add(a, b)
  return acc.result()
}

/**
 * Distances between two checkpoints of the same job (same tensor names, shapes and optimizer type):
 * over the whole weight vector (all weights concatenated in checkpoint order; the optimizer state is
 * not part of it, its units differ) and per tensor (every tensor, adam's m and v included).
 * See docs/verification.md.
 *
 * @throws DistanceError when the checkpoints do not have the same tensors
 */
export function parameterDistances(a: Checkpoint, b: Checkpoint, start?: Checkpoint): CheckpointDistances {
  if (a.optimizer.type !== b.optimizer.type)
    throw new DistanceError(`checkpoint optimizer: expected the same on both sides, got ${a.optimizer.type} and ${b.optimizer.type}`)
  const ta = checkpointTensorList(a)
  const tb = checkpointTensorList(b)
  if (ta.length !== tb.length) throw new DistanceError(`checkpoint tensors: expected the same count on both sides, got ${ta.length} and ${tb.length}`)
  const whole = new Accumulator()
  const perTensor: TensorDistances[] = []
  for (const [i, x] of ta.entries()) {
    const y = tb[i] as CheckpointTensor
    if (x.name !== y.name || x.shape.join(',') !== y.shape.join(',') || x.values.length !== y.values.length)
      throw new DistanceError(`checkpoint tensor ${i}: expected the same name and shape on both sides, got ${x.name} [${x.shape.join(', ')}] and ${y.name} [${y.shape.join(', ')}]`)
    perTensor.push({name: x.name, ...vectorDistances(x.values, y.values)})
    if (i < a.weights.length) whole.add(x.values, y.values)
  }
  const distances: CheckpointDistances = {whole: whole.result(), perTensor}
  return start === undefined ? distances : {...distances, update: updateRatio(distances.whole.l2, b, start)}
}

/** ‖replay - committed‖₂ / ‖committed - start‖₂ over the weights (see {@link CheckpointDistances.update}). */
function updateRatio(l2: number, committed: Checkpoint, start: Checkpoint): number {
  if (start.weights.length !== committed.weights.length) throw new DistanceError(`start checkpoint: expected ${committed.weights.length} weight tensors, got ${start.weights.length}`)
  const update = new Accumulator()
  for (const [i, w] of committed.weights.entries()) {
    const s = start.weights[i] as CheckpointTensor
    if (s.values.length !== w.values.length) throw new DistanceError(`start checkpoint tensor ${s.name}: expected ${w.values.length} values, got ${s.values.length}`)
    update.add(w.values, s.values)
  }
  const size = update.result().l2
  if (l2 === 0) return 0
  if (l2 === nonFiniteDistance || size === nonFiniteDistance || size === 0) return nonFiniteDistance
  return l2 / size
}
