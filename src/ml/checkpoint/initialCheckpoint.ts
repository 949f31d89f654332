import type {Hex} from 'viem'

import {givenWeights} from '../model/givenWeights.js'
import {initialWeights, modelWeights} from '../model/initialWeights.js'
import {type JobSpec, optimizerStateType} from '../spec/schema.js'
import type {Checkpoint, CheckpointTensor} from './types.js'

/**
 * The step-0 checkpoint every honest run starts from: {@link initialWeights} (or a fine-tuning job's given
 * weights, `model.initialWeights`) and a fresh optimizer
 * (adam: t = 0, beta1Power = beta2Power = 1, m = v = 0). Its hash is what verifiers compare with a
 * proof's first checkpoint.
 */
export function initialCheckpoint(spec: JobSpec): Checkpoint {
  const infos = modelWeights(spec.model)
  // fine-tuning: the weights the spec names (published by their hash), else the seeded initialiser
  const given = spec.model.initialWeights?.data
  const values = given === undefined ? initialWeights(spec) : givenWeights(given as Hex)
  const weights: CheckpointTensor[] = infos.map((w, i) => ({name: w.name, shape: [...w.shape], values: values[i] as Float32Array}))
  const zeros = (prefix: string) => weights.map((w) => ({name: `${prefix}/${w.name}`, shape: [...w.shape], values: new Float32Array(w.values.length)}))
  const state = optimizerStateType(spec)
  if (state === 'sgd') return {step: 0, weights, optimizer: {type: 'sgd'}}
  if (state === 'momentum') return {step: 0, weights, optimizer: {type: 'momentum', m: zeros('m')}}
  return {step: 0, weights, optimizer: {type: 'adam', t: 0, beta1Power: 1, beta2Power: 1, m: zeros('m'), v: zeros('v')}}
}
