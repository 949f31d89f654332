import type {Checkpoint, CheckpointTensor} from '../ml/checkpoint/types.js'
import type {PrngStream} from '../ml/prng/prngStream.js'
import {prngStream} from '../ml/prng/prngStream.js'
import {type JobSpec, optimizerStateType} from '../ml/spec/schema.js'

/**
 * The cheater's own randomness: a gensyn PRNG stream under a label of its own, so a strategy's choices
 * depend only on the `seed` it is given (never on the chain's randomness, which does not exist yet when
 * the proof is committed).
 */
export function cheaterStream(strategy: string, seed: number, use: string): PrngStream {
  return prngStream(`gensyn/adversary/v1 strategy=${strategy} seed=${seed} use=${use}`)
}

/** `count` distinct values of `pool`, picked by a partial Fisher-Yates shuffle driven by `stream`, ascending. */
export function pickBlindly(stream: PrngStream, pool: readonly number[], count: number): number[] {
  const items = [...pool]
  const n = Math.min(count, items.length)
  for (let i = 0; i < n; i++) {
    const j = i + stream.nextBelow(items.length - i)
    const t = items[i] as number
    items[i] = items[j] as number
    items[j] = t
  }
  return items.slice(0, n).sort((a, b) => a - b)
}

/** Adam's running float32 products beta1^t and beta2^t exactly as training computes them (never pow()). */
export function adamPowers(spec: JobSpec, t: number): {beta1Power: number; beta2Power: number} {
  const optimizer = spec.training.optimizer
  let beta1Power = 1
  let beta2Power = 1
  if (optimizer.type === 'sgd') return {beta1Power: 0, beta2Power: 0}
  for (let i = 0; i < t; i++) {
    beta1Power = Math.fround(beta1Power * Math.fround(optimizer.beta1))
    beta2Power = Math.fround(beta2Power * Math.fround(optimizer.beta2))
  }
  return {beta1Power, beta2Power}
}

const mapTensor = (t: CheckpointTensor, f: (value: number, i: number) => number): CheckpointTensor => {
  const values = new Float32Array(t.values.length)
  for (let i = 0; i < values.length; i++) values[i] = f(t.values[i] as number, i)
  return {name: t.name, shape: [...t.shape], values}
}

const zipTensor = (a: CheckpointTensor, b: CheckpointTensor | undefined, f: (x: number, y: number) => number): CheckpointTensor =>
  mapTensor(a, (x, i) => f(x, (b?.values[i] ?? 0) as number))

/**
 * A state with the given tensors whose header claims `step` updates: for adam t = step and the beta
 * products of `step` updates, exactly what an honest checkpoint at that step carries.
 */
export function stateAt(spec: JobSpec, step: number, weights: CheckpointTensor[], m: CheckpointTensor[], v: CheckpointTensor[]): Checkpoint {
  const state = optimizerStateType(spec)
  if (state === 'sgd') return {step, weights, optimizer: {type: 'sgd'}}
  if (state === 'momentum') return {step, weights, optimizer: {type: 'momentum', m}}
  return {step, weights, optimizer: {type: 'adam', t: step, ...adamPowers(spec, step), m, v}}
}

const momentsOf = (cp: Checkpoint) =>
  cp.optimizer.type === 'adam' ? {m: cp.optimizer.m, v: cp.optimizer.v} : cp.optimizer.type === 'momentum' ? {m: cp.optimizer.m, v: []} : {m: [], v: []}

/** The same tensors relabelled as the state at `step` (a padded checkpoint). */
export function relabel(spec: JobSpec, cp: Checkpoint, step: number): Checkpoint {
  const {m, v} = momentsOf(cp)
  return stateAt(spec, step, cp.weights, m, v)
}

/** Element-wise a + f (b - a) in float32, for weights and moments, labelled as the state at `step`. */
export function interpolate(spec: JobSpec, a: Checkpoint, b: Checkpoint, f: number, step: number): Checkpoint {
  const lerp = (x: number, y: number) => x + f * (y - x)
  const ma = momentsOf(a)
  const mb = momentsOf(b)
  return stateAt(
    spec,
    step,
    a.weights.map((t, i) => zipTensor(t, b.weights[i], lerp)),
    ma.m.map((t, i) => zipTensor(t, mb.m[i], lerp)),
    ma.v.map((t, i) => zipTensor(t, mb.v[i], lerp)),
  )
}

/** The weights plus uniform noise in [-amplitude, amplitude) from `stream`; the optimizer state is kept. */
export function addNoise(cp: Checkpoint, stream: PrngStream, amplitude: number): Checkpoint {
  const weights = cp.weights.map((t) => mapTensor(t, (x) => x + (2 * stream.nextUnit() - 1) * amplitude))
  return {...cp, weights}
}

/** Uniform values in [low, high) from `stream`, shaped like `like` and named `name`. */
export function uniformTensor(like: CheckpointTensor, name: string, stream: PrngStream, low: number, high: number): CheckpointTensor {
  return {...mapTensor(like, () => low + (high - low) * stream.nextUnit()), name}
}

/**
 * Linearised training: the state `length` updates after `start`, guessed from one real update
 * (`probe` = start after one step) as if the gradient stayed what the probe saw. The weights move
 * `shrink * length` times the probe's update (real gradients turn, so the straight line overshoots:
 * shrink 0.1 keeps forge's final model within 3 to 5 points of the honest test accuracy on the fixtures,
 * 0.5 or more cost 5 to 20 points on smoke-mlp); adam's
 * moments follow their closed form for a constant gradient g recovered from the probe,
 * m_L = b1^L m_0 + (1 - b1^L) g and v_L = b2^L v_0 + (1 - b2^L) g^2; the header (t, beta products) is
 * exact for the end step. Cheap (a few passes over the parameters) and well formed in every respect.
 */
export function linearise(spec: JobSpec, start: Checkpoint, probe: Checkpoint, length: number, shrink = 0.1): Checkpoint {
  const step = start.step + length
  const weights = start.weights.map((w, i) => zipTensor(w, probe.weights[i], (w0, w1) => w0 + shrink * length * (w1 - w0)))
  const optimizer = spec.training.optimizer
  // momentum: the probe's velocity, held (a plausible state, not the exact one)
  if (probe.optimizer.type === 'momentum') return stateAt(spec, step, weights, probe.optimizer.m, [])
  if (optimizer.type === 'sgd' || start.optimizer.type !== 'adam' || probe.optimizer.type !== 'adam') return stateAt(spec, step, weights, [], [])
  const b1 = Math.fround(optimizer.beta1)
  const b2 = Math.fround(optimizer.beta2)
  const b1L = b1 ** length
  const b2L = b2 ** length
  const {m: m0, v: v0} = start.optimizer
  const {m: m1} = probe.optimizer
  // g from the probe's first moment: m_1 = b1 m_0 + (1 - b1) g
  const g = m0.map((t, i) => zipTensor(t, m1[i], (a, b) => (b - b1 * a) / (1 - b1)))
  const m = m0.map((t, i) => zipTensor(t, g[i], (a, gi) => b1L * a + (1 - b1L) * gi))
  const v = v0.map((t, i) => zipTensor(t, g[i], (a, gi) => b2L * a + (1 - b2L) * gi * gi))
  return stateAt(spec, step, weights, m, v)
}
