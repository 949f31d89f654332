import type {Hex} from 'viem'
import {datasetHash} from '../ml/data/datasetHash.js'
import {jobSpecSchema, type JobSpec} from '../ml/spec/schema.js'
import {specHash} from '../ml/spec/specHash.js'
import {taskStepRange} from '../ml/train/taskStepRange.js'
import {trainJob} from '../ml/train/trainJob.js'
import {proofManifestSchema, type ProofManifest} from '../ml/checkpoint/manifest.js'
import {canonicalJson} from '../store/canonicalJson.js'
import type {BlobStore} from '../store/types.js'
import {CommittedCheckpoints, throwIfAborted, type StrategyContext, type StrategyOutcome} from './context.js'
import {AdversaryInputError} from './errors.js'

/** The fields that decide a job's checkpoints (name, test split, verification and payment do not). */
function trainingIdentity(spec: JobSpec): string {
  return canonicalJson({
    model: spec.model,
    data: datasetHash(spec),
    training: spec.training,
    checkpointInterval: spec.proof.checkpointInterval,
  })
}

/** The source proof's spec, when its blob is in the store and valid. */
async function sourceSpec(store: BlobStore, hash: Hex): Promise<JobSpec | undefined> {
  if (!(await store.has(hash))) return undefined
  const parsed = jobSpecSchema.safeParse(await store.getJson<unknown>(hash).catch(() => undefined))
  return parsed.success ? parsed.data : undefined
}

/** The seed copy trains its own source proof with when no copyFrom is given: the cheater's, never the job's. */
export function copySourceSeed(spec: JobSpec, seed: number): number {
  return seed === spec.training.seed ? (seed + 1) % 2 ** 32 : seed
}

async function loadSource(store: BlobStore, copyFrom: Hex): Promise<ProofManifest> {
  if (!(await store.has(copyFrom))) throw new AdversaryInputError(`copyFrom: no manifest ${copyFrom} in the store`)
  let value: unknown
  try {
    value = await store.getJson<unknown>(copyFrom)
  } catch (error) {
    throw new AdversaryInputError(`copyFrom: blob ${copyFrom} is not JSON, expected a proof manifest`, {cause: error})
  }
  const parsed = proofManifestSchema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new AdversaryInputError(`copyFrom: blob ${copyFrom} is not a proof manifest (${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'malformed'})`)
  }
  const manifest = parsed.data as ProofManifest
  for (const c of manifest.checkpoints)
    if (!(await store.has(c.hash))) throw new AdversaryInputError(`copyFrom: manifest ${copyFrom} names checkpoint ${c.hash} (step ${c.step}), which is not in the store`)
  return manifest
}

/**
 * copy: presents another proof as this job's. The source is the manifest `copyFrom` (its checkpoints must
 * be in the store), or, without it, this job trained with another seed ({@link copySourceSeed}). The
 * copied manifest keeps the source's checkpoints, root and runtime and takes this job's spec and data
 * set hashes (leaving them would fail the cheapest checks). A source whose training fields equal this
 * job's made exactly the honest checkpoints: nothing is faked then, and the verifier rightly accepts.
 */
export async function copyProof(context: StrategyContext): Promise<StrategyOutcome> {
  const {spec, store} = context
  let source: ProofManifest
  let trainedSteps = 0
  let finalLoss = Number.NaN
  let origin: JobSpec | undefined
  if (context.copyFrom !== undefined) {
    source = await loadSource(store, context.copyFrom)
    origin = await sourceSpec(store, source.specHash)
  } else {
    origin = {...spec, training: {...spec.training, seed: copySourceSeed(spec, context.seed)}}
    // a split task's source starts where the task does (its parent's final checkpoint), then trains with its own seed
    const trained = await trainJob({spec: origin, store, start: context.start, backend: context.backend, wasmVariant: context.wasmVariant, onStep: context.onStep, signal: context.signal})
    source = trained.manifest
    const range = taskStepRange(origin)
    trainedSteps = range.end - range.start
    finalLoss = trained.finalLoss
  }
  const committed = new CommittedCheckpoints(context)
  for (const ref of source.checkpoints) {
    throwIfAborted(context.signal, ref.step)
    await committed.commitRef({...ref})
  }
  const honest = origin !== undefined && trainingIdentity(origin) === trainingIdentity(spec)
  return {
    checkpoints: committed.refs,
    runtime: source.runtime,
    finalLoss,
    trainedSteps,
    fakedSegments: honest ? [] : source.checkpoints.slice(1).map((_, i) => i),
    manifest: {...source, checkpoints: committed.refs, specHash: specHash(spec), datasetHash: datasetHash(spec)},
  }
}
