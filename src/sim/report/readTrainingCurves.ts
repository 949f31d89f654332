import type {Address, Hex} from 'viem'

import {evaluateCheckpoint} from '../../ml/evaluate/index.js'
import {type JobSpec, specHash} from '../../ml/spec/index.js'
import {proofManifestSchema} from '../../ml/checkpoint/manifest.js'
import type {VerificationReport} from '../../pol/verifyProof.js'
import {loadTaskSpec} from '../../protocol/loadTaskSpec.js'
import type {BlobStore} from '../../store/types.js'
import type {CommittedProof} from './committedProofs.js'
import type {CurvePoint, CurveReplay, TrainingCurve} from './types.js'

export type ReadTrainingCurvesOptions = {
  store: BlobStore
  proofs: readonly CommittedProof[]
  /** An account's actor name and strategy (the address itself when it is no actor of the run). */
  actorOf: (address: Address) => {name: string; strategy?: string | undefined}
}

/**
 * The training curve of every committed proof, from the blob store alone: the proof's manifest lists its
 * checkpoints, each is scored on the job's test split (`evaluateCheckpoint`, wasm, so the figures repeat
 * exactly), and each verdict's verification report names the segments its verifier replayed. Nothing the
 * actors said is needed, so a report rebuilt from a running chain has the curves too.
 */
export async function readTrainingCurves(options: ReadTrainingCurvesOptions): Promise<TrainingCurve[]> {
  const curves: TrainingCurve[] = []
  // Proofs share checkpoints (every task's random start, a copied proof, a retraining): each is scored once.
  const scores: Scores = new Map()
  for (const proof of options.proofs) curves.push(await readCurve(options, proof, scores))
  return curves
}

/** Scores by spec and checkpoint hash. */
type Scores = Map<string, Promise<CurvePoint>>

async function readCurve({store, actorOf}: ReadTrainingCurvesOptions, proof: CommittedProof, scores: Scores): Promise<TrainingCurve> {
  const solver = proof.solver === undefined ? {name: 'unknown'} : actorOf(proof.solver)
  const last = proof.verdicts.at(-1)
  const curve: TrainingCurve = {
    taskId: proof.taskId,
    proof: proof.proof,
    solver: solver.name,
    ...(solver.strategy === undefined ? {} : {strategy: solver.strategy}),
    manifestHash: proof.manifestHash,
    metric: 'none',
    points: [],
    replays: await readReplays(store, proof, actorOf),
    verdict: last === undefined ? 'none' : !last.accepted ? 'rejected' : proof.reopened ? 'overturned' : 'accepted',
  }
  try {
    const manifest = proofManifestSchema.parse(await store.getJson(proof.manifestHash))
    const spec = await loadTaskSpec({store}, {id: BigInt(proof.taskId), specHash: (proof.specHash ?? manifest.specHash) as Hex})
    const scored = await scoreCheckpoints(store, spec, manifest.checkpoints as {step: number; hash: Hex}[], scores)
    curve.points = scored.points
    curve.metric = scored.points.some((point) => point.testAccuracy !== null) ? 'test accuracy' : 'none'
    if (scored.problem !== undefined) curve.problem = scored.problem
  } catch (error) {
    curve.problem = `proof ${proof.manifestHash}: ${oneLine(error)}`
  }
  return curve
}

/** Scores every checkpoint; one that does not score (forged bytes, a wrong shape) is a gap, named once. */
async function scoreCheckpoints(store: BlobStore, spec: JobSpec, checkpoints: readonly {step: number; hash: Hex}[], scores: Scores): Promise<{points: CurvePoint[]; problem?: string}> {
  const points: CurvePoint[] = []
  let problem: string | undefined
  const job = specHash(spec)
  for (const {step, hash} of checkpoints) {
    const key = `${job} ${hash}`
    try {
      if (!scores.has(key)) scores.set(key, score(store, spec, hash))
      points.push({...(await scores.get(key)!), step})
    } catch (error) {
      points.push({step, testLoss: null, testAccuracy: null})
      problem ??= `checkpoint at step ${step} (${hash}): ${oneLine(error)}`
    }
  }
  return problem === undefined ? {points} : {points, problem}
}

async function score(store: BlobStore, spec: JobSpec, hash: Hex): Promise<CurvePoint> {
  const {testLoss, testAccuracy} = await evaluateCheckpoint({spec, checkpoint: await store.get(hash), backend: 'wasm'})
  return {step: 0, testLoss: finiteOrNull(testLoss), testAccuracy: finiteOrNull(testAccuracy)}
}

/** The segments each verdict's verifier replayed (a lazy or colluding verifier's report lists none). */
async function readReplays(store: BlobStore, proof: CommittedProof, actorOf: ReadTrainingCurvesOptions['actorOf']): Promise<CurveReplay[]> {
  const replays: CurveReplay[] = []
  for (const verdict of proof.verdicts) {
    const report = await store.getJson<Partial<VerificationReport>>(verdict.reportHash).catch(() => undefined)
    const verifier = verdict.verifier === undefined ? 'unknown' : actorOf(verdict.verifier).name
    for (const replay of Array.isArray(report?.segments) ? report.segments : []) {
      replays.push({verifier, segment: replay.segment, startStep: replay.startStep, endStep: replay.endStep, match: replay.match})
    }
  }
  return replays
}

const finiteOrNull = (value: number) => (Number.isFinite(value) ? value : null)

function oneLine(error: unknown): string {
  const message = (error as {shortMessage?: unknown}).shortMessage ?? (error instanceof Error ? error.message : String(error))
  return String(message).split('\n')[0] ?? ''
}
