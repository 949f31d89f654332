// Subtle cheats for the cross-runtime bench (bench/crossRuntime.ts): each turns one honest segment start into the
// end checkpoint a cheater would commit, on the prover's runtime, with the counters (step, adam's t and powers)
// an honest end has, so only the weights and moments can give it away.
import type {Checkpoint, CheckpointTensor} from '../src/ml/checkpoint/types.js'
import type {JobSpec} from '../src/ml/spec/index.js'
import {trainSegment} from '../src/ml/train/trainSegment.js'
import {relabel} from '../src/adversary/fakeState.js'

export const subtleCheats = ['one-step-skipped', 'wrong-batch', 'lr-x0.9', 'half-precision'] as const
export type SubtleCheat = (typeof subtleCheats)[number]

/** fp32 → nearest fp16 value (round half to even), back in fp32: what a cast to half precision keeps. */
export function roundToHalf(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x
  const magnitude = Math.abs(x)
  if (magnitude >= 65520) return Math.sign(x) * Infinity
  // spacing of fp16 values around x: 2^(e - 10) for normals (e = floor(log2|x|) >= -14), 2^-24 for subnormals
  const exponent = Math.max(Math.floor(Math.log2(magnitude)), -14)
  const ulp = 2 ** (exponent - 10)
  const q = magnitude / ulp
  const floor = Math.floor(q)
  const rounded = q - floor > 0.5 || (q - floor === 0.5 && floor % 2 === 1) ? floor + 1 : floor
  return Math.sign(x) * rounded * ulp
}

const halfTensor = (t: CheckpointTensor): CheckpointTensor => ({...t, values: Float32Array.from(t.values, roundToHalf)})

/** The end of segment [start.step, endStep] as `cheat` would commit it. */
export async function cheatSegment(cheat: SubtleCheat, spec: JobSpec, start: Checkpoint, endStep: number, honestEnd: Checkpoint): Promise<Checkpoint> {
  switch (cheat) {
    case 'one-step-skipped':
      // trains every step but the last, and labels the state as the end
      return relabel(spec, await trainSegment(spec, start, endStep - 1), endStep)
    case 'wrong-batch': {
      // the first step of the segment on another batch (the batch order of another training seed), the rest honest
      const other: JobSpec = {...spec, training: {...spec.training, seed: (spec.training.seed + 7919) % 2 ** 32}}
      return trainSegment(spec, await trainSegment(other, start, start.step + 1), endStep)
    }
    case 'lr-x0.9': {
      const optimizer = {...spec.training.optimizer, learningRate: spec.training.optimizer.learningRate * 0.9}
      return trainSegment({...spec, training: {...spec.training, optimizer}} as JobSpec, start, endStep)
    }
    case 'half-precision': {
      const {optimizer} = honestEnd
      const weights = honestEnd.weights.map(halfTensor)
      if (optimizer.type === 'adam') return {...honestEnd, weights, optimizer: {...optimizer, m: optimizer.m.map(halfTensor), v: optimizer.v.map(halfTensor)}}
      if (optimizer.type === 'momentum') return {...honestEnd, weights, optimizer: {...optimizer, m: optimizer.m.map(halfTensor)}}
      return {...honestEnd, weights}
    }
  }
}
