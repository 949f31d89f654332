import {readdir} from 'node:fs/promises'
import path from 'node:path'

import {loadLocalJob} from '../../src/ml/data/loadLocalJob.js'
import {type JobSpec, parseJobSpec} from '../../src/ml/spec/index.js'
import type {PeerSkip} from './peerTable.js'

export type PeerModel = {name: string; spec: JobSpec}

/** The two reference models of issue 20, on MNIST at batch 64 with plain SGD and a proof checkpoint every 100 steps. */
const referenceJobs = {
  'mlp-784-128-10': `
model:
  inputShape: [784]
  layers:
    - {type: dense, units: 128, activation: relu}
    - {type: dense, units: 10, activation: softmax}`,
  'cnn-conv8-pool-dense10': `
model:
  inputShape: [28, 28, 1]
  layers:
    - {type: conv2d, filters: 8, kernelSize: 3, activation: relu}
    - {type: maxPooling2d, poolSize: 2}
    - {type: flatten}
    - {type: dense, units: 10, activation: softmax}`,
}

/**
 * A job training `model` (its YAML, `model:` included) on MNIST with plain SGD: the batch 64 and a proof
 * checkpoint every 100 steps unless given (bench/gpu.ts adds a GPU-sized model at other sizes).
 */
export function mnistSgdJob(name: string, model: string, {batchSize = 64, checkpointInterval = 100} = {}): JobSpec {
  return parseJobSpec(
    `name: ${name}${model}
dataset: {name: mnist, trainLimit: 10000, testLimit: 1000}
training: {steps: 1000, batchSize: ${batchSize}, optimizer: {type: sgd, learningRate: 0.05}, seed: 1}
proof: {checkpointInterval: ${checkpointInterval}}
verification: {segments: 2}
payment: {maxPrice: "0.00002"}`,
    `${name}.yaml`,
  )
}

/** The two reference models as jobs (the first rows of bench:peer and bench:gpu). */
export const referenceModels = (): PeerModel[] => Object.entries(referenceJobs).map(([name, model]) => ({name, spec: mnistSgdJob(name, model)}))

/** What decides a step's cost and result offline: two jobs alike in these train alike (a private job's mapping is not applied offline). */
const trainingKey = (spec: JobSpec) => JSON.stringify({model: spec.model, training: spec.training, proof: spec.proof, dataset: 'name' in spec.dataset ? spec.dataset.trainLimit : spec.dataset.data})

/**
 * The models `bench:peer` trains: the two reference models, then every job in `jobsDir` as `solve --offline`
 * loads it (its own data read and registered), less jobs that train exactly like one already listed, which are
 * skipped with the name of their twin; a job that does not load is skipped with its error.
 */
export async function peerModels(jobsDir: string): Promise<(PeerModel | PeerSkip)[]> {
  const out: (PeerModel | PeerSkip)[] = referenceModels()
  const seen = new Map<string, string>()
  for (const file of (await readdir(jobsDir)).filter((f) => f.endsWith('.yaml')).sort()) {
    const name = file.replace(/\.yaml$/, '')
    let spec: JobSpec
    try {
      spec = await loadLocalJob(path.join(jobsDir, file))
    } catch (error) {
      out.push({model: name, skipped: `the job does not load: ${(error as Error).message}`})
      continue
    }
    const twin = seen.get(trainingKey(spec))
    if (twin) out.push({model: name, skipped: `trains exactly as ${twin} offline (same model, data rows, optimizer and seed)`})
    else {
      seen.set(trainingKey(spec), name)
      out.push({name, spec})
    }
  }
  return out
}
