// The detection matrix benchmark: `npm run bench:verification` (= `npx tsx bench/verification.ts`).
//
// For the MLP (fixtures/jobs/smoke-mlp.yaml) and the CNN (fixtures/jobs/mnist-cnn.yaml), in exact mode and
// in cross-runtime tolerance mode, it makes N proofs per solver strategy (honest and every adversary of
// src/adversary) by real training on MNIST, verifies each with verifyProof and its own randomness, and
// prints:
//  1. the detection matrix (strategy x job/mode -> rejected / decided), the honest row being the
//     false-positive rate; inconclusive reports count as neither and are shown apart;
//  2. verification compute as a fraction of training compute (seconds and steps), against full
//     replication (1.0 per verifier);
//  3. for every strategy that a 2-segment plan does not catch with >= 99 %, the trade-off curve: exact
//     detection probability (plan formula, the strategy's faked segments) and measured rates by sample
//     size s, with the compute fraction s costs;
//  4. the finer checkpoint interval at which a 99 % plan against forge fits 10 % of the steps, measured
//     (exact mode; honest, forge and noise proofs).
//
// Environment: BENCH_PROVER=webgpu (the MLP only, tolerance-mode proofs trained on webgpu and replayed on
// wasm), BENCH_N (tasks per strategy, job and mode; default 4, quick 1), BENCH_QUICK=1 (a smoke
// run), BENCH_DRAWS (trade-off draws per proof and sample size; default 5, quick 1), BENCH_FINE_DRAWS (draws
// per proof at the finer checkpoint interval; default 25, quick 1), BENCH_OUT (write
// the full results as JSON: to bench/results/verification.json, or to BENCH_OUT itself when it ends in
// .json). Progress goes to stderr, tables to stdout.
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import type {Hex} from 'viem'

import {cheat, describeStrategy, strategyNames, type StrategyName} from '../src/adversary/index.js'
import {runtimeIdString, type BackendName} from '../src/ml/backend/index.js'
import {loadJobSpec, type JobSpec} from '../src/ml/spec/index.js'
import {checkpointSchedule, trainJob} from '../src/ml/train/index.js'
import {profileJob, segmentsForTarget, verifyProof, type Distances, type Thresholds, type VerificationMode, type VerificationReport} from '../src/pol/index.js'
import {createLocalStore, type BlobStore} from '../src/store/index.js'
import {
  cellOf,
  cellRate,
  cellText,
  mean,
  median,
  percent,
  planDetection,
  randomnessFor,
  rate,
  replayedSteps,
  seedFor,
  table,
  type VerificationRecord,
} from './verificationMatrix.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** How one job is benchmarked. */
export type JobPlan = {
  file: string
  label: string
  /** Overrides proof.checkpointInterval, so the job has about 20 segments. */
  checkpointInterval: number
  /** Overrides verification.segments: the final segment + (sampled - 1) uniform. */
  sampled: number
  tolerance: {
    /** Runtime the proofs are trained on, and the one the verifier replays on. */
    prover: BackendName
    verifier: BackendName
    /** profileJob: reference runtime first; seeds; segments per seed (default all). */
    profileRuntimes: BackendName[]
    profileSeeds: number
    profileSegments?: number | undefined
    /** Measure the trade-off curve in tolerance mode too (cheap only when the verifier runtime is fast). */
    measureTradeoff: boolean
    /** Take full replication's seconds from the profile's replays on the verifier runtime instead of replaying every segment again. */
    fullReplicationFromProfile: boolean
  }
}

export const defaultJobs: JobPlan[] = [
  {
    file: 'fixtures/jobs/smoke-mlp.yaml',
    label: 'MLP',
    checkpointInterval: 10,
    sampled: 2,
    tolerance: {prover: 'cpu', verifier: 'wasm', profileRuntimes: ['cpu', 'wasm'], profileSeeds: 2, measureTradeoff: true, fullReplicationFromProfile: false},
  },
  {
    file: 'fixtures/jobs/mnist-cnn.yaml',
    label: 'CNN',
    checkpointInterval: 12,
    sampled: 2,
    // cpu trains the CNN at ~3 steps/s: its proofs are trained on wasm and replayed on cpu instead
    tolerance: {prover: 'wasm', verifier: 'cpu', profileRuntimes: ['wasm', 'cpu'], profileSeeds: 1, measureTradeoff: false, fullReplicationFromProfile: true},
  },
]

/** The MLP with its tolerance-mode proofs trained on webgpu (a GPU, or lavapipe) and replayed on wasm. */
export const webgpuMlpPlan: JobPlan = {
  ...(defaultJobs[0] as JobPlan),
  label: 'MLP (webgpu)',
  tolerance: {prover: 'webgpu', verifier: 'wasm', profileRuntimes: ['webgpu', 'wasm'], profileSeeds: 2, measureTradeoff: false, fullReplicationFromProfile: false},
}

export type VerificationBenchOptions = {
  /** Tasks (proofs) per strategy, job and mode. */
  n: number
  /** Trade-off curve: randomness draws per proof and sample size. */
  draws: number
  /** Full replication (every segment replayed) and the honest proofs' verifications are timed this many times (once where the verifier runtime is slow); the median counts. */
  fullReplicationRuns: number
  quick: boolean
  jobs?: JobPlan[] | undefined
  /** Also measure forge, noise and honest proofs at the finer interval where a 99 % plan against forge fits 10 % of the steps (default true). */
  fineCheckpoints?: boolean | undefined
  /** Finer checkpoints: randomness draws per proof (default `draws`). */
  fineDraws?: number | undefined
  /** Progress lines (default stderr). */
  log?: ((line: string) => void) | undefined
}

type Phase = {job: string; label: string; mode: VerificationMode}

export type ModeSummary = Phase & {
  segmentCount: number
  steps: number
  checkpointInterval: number
  schedule: number[]
  sampled: number
  prover: string
  verifier: string
  /** Seconds of the honest proofs' training (trainJob, prover runtime): median. */
  trainingSeconds: number
  /** Full replication: seconds to replay every segment on the verifier's runtime, and how that was measured. */
  fullReplicationSeconds: number
  fullReplicationSource: string
  /** Honest verifications (every sampled segment replayed), timed in a pass of their own: medians. */
  replaySeconds: number
  /** The same replays as timed in the matrix pass, each right after its proof's training: median. */
  matrixPassReplaySeconds: number
  verifySeconds: number
  replayedSteps: number
  /** tolerance: the profile behind the thresholds. */
  profile?: {
    seeds: number[]
    runtimeClass: string
    samples: number
    seconds: number
    observedWhole: Distances
    thresholdsWhole: Thresholds
    /** max over honest replays of distance / threshold, whole weight vector, per metric. */
    honestMargin: Partial<Record<keyof Distances, number>>
  }
}

export type TradeoffPoint = Phase & {strategy: StrategyName; sampled: number; rejected: number; accepted: number; inconclusive: number; planDetection: number; replayedSteps: number}

/** Finer checkpoints: the largest interval at which a 99 % plan against forge fits the 10 % budget, measured in exact mode. */
export type FineCheckpointResult = {
  job: string
  label: string
  checkpointInterval: number
  segmentCount: number
  steps: number
  /** s: the smallest plan reaching 99 % against forge's ceil((n - 1) / 2) forged segments. */
  sampled: number
  replayedSteps: number
  /** Per strategy: every proof verified with `draws` randomness values at s. */
  cells: {strategy: StrategyName; rejected: number; accepted: number; inconclusive: number; planDetection: number; computeFraction: number}[]
  /** Honest trainJob seconds at this interval (median), next to the coarse interval's. */
  trainingSeconds: number
  coarseTrainingSeconds: number
  replaySeconds: number
  verifySeconds: number
  fullReplicationSeconds: number
}

export type VerificationBenchResult = {
  machine: string
  node: string
  options: {n: number; draws: number; fineDraws: number; quick: boolean; fullReplicationRuns: number}
  records: VerificationRecord[]
  summaries: ModeSummary[]
  tradeoff: TradeoffPoint[]
  /** Phases where the trade-off was not measured, and why. */
  tradeoffSkipped: string[]
  fine: FineCheckpointResult[]
  seconds: number
}

const msg = (error: unknown) => (error as {shortMessage?: string}).shortMessage ?? (error instanceof Error ? error.message : String(error))

function withOverrides(base: JobSpec, plan: JobPlan, trainingSeed: number): JobSpec {
  return {
    ...base,
    training: {...base.training, seed: trainingSeed},
    proof: {...base.proof, checkpointInterval: plan.checkpointInterval},
    verification: {...base.verification, segments: plan.sampled},
  }
}

/** Training seed of task i: the job's seed + i (exact) or + 100 + i (tolerance): every task is its own job. The profile uses + 10000. */
const taskSeed = (base: JobSpec, mode: VerificationMode, task: number) => (base.training.seed + (mode === 'exact' ? 0 : 100) + task) % 2 ** 32
const profileSeed = (base: JobSpec) => (base.training.seed + 10_000) % 2 ** 32

const failedCheck = (report: VerificationReport): string | null => Object.entries(report.checks).find(([, status]) => status === 'fail')?.[0] ?? null

function replayStats(report: VerificationReport): {replaySeconds: number; replayedSteps: number} {
  return {
    replaySeconds: report.segments.reduce((a, s) => a + s.seconds, 0),
    replayedSteps: report.segments.reduce((a, s) => a + s.endStep - s.startStep, 0),
  }
}

type Proof = {strategy: StrategyName; task: number; spec: JobSpec; manifestHash: Hex; fakedSegments: number[]}

/** One job in one mode: its proofs, still in their store, for the trade-off draws that follow. */
type PhaseState = Phase & {
  plan: JobPlan
  store: BlobStore
  dir: string
  proofs: Proof[]
  thresholds: Thresholds | undefined
  verifierBackend: BackendName | undefined
  schedule: number[]
  segmentCount: number
}

const tag = (p: Phase) => `[${p.label} ${p.mode}]`

async function runPhase(
  plan: JobPlan,
  base: JobSpec,
  mode: VerificationMode,
  root: string,
  options: VerificationBenchOptions,
  log: (line: string) => void,
  records: VerificationRecord[],
): Promise<{state: PhaseState; summary: ModeSummary}> {
  const phaseStarted = performance.now()
  const phase: Phase = {job: base.name, label: plan.label, mode}
  const dir = path.join(root, `${base.name}-${mode}`)
  const store = createLocalStore(dir)
  const prover: BackendName = mode === 'exact' ? 'wasm' : plan.tolerance.prover
  const verifierBackend: BackendName | undefined = mode === 'exact' ? undefined : plan.tolerance.verifier
  const schedule = checkpointSchedule(withOverrides(base, plan, taskSeed(base, mode, 0)))
  const segmentCount = schedule.length - 1
  const steps = base.training.steps

  // tolerance mode: thresholds profiled on a training seed no task uses
  let thresholds: Thresholds | undefined
  let profileSummary: ModeSummary['profile'] | undefined
  let profileFullRun: {seconds: number; source: string} | undefined
  if (mode === 'tolerance') {
    log(`${tag(phase)} profiling ${plan.tolerance.profileRuntimes.join(' + ')}, ${plan.tolerance.profileSeeds} seed(s) from ${profileSeed(base)}, ${plan.tolerance.profileSegments ?? 'all'} segments`)
    const profile = await profileJob({
      spec: withOverrides(base, plan, profileSeed(base)),
      runtimes: plan.tolerance.profileRuntimes,
      seeds: plan.tolerance.profileSeeds,
      segments: plan.tolerance.profileSegments,
    })
    if (profile.unavailable.length > 0) throw new Error(`profile: ${profile.unavailable.map((u) => `${u.backend}: ${u.reason}`).join('; ')}`)
    thresholds = profile.thresholds
    const {perTensor: _perTensor, eachTensor: _eachTensor, ...whole} = profile.thresholds
    const verifierId = profile.runtimes.find((r) => r.backend === plan.tolerance.verifier)
    const onVerifier = profile.samples.filter((s) => verifierId !== undefined && s.replay === runtimeIdString(verifierId) && s.seed === profileSeed(base))
    const sampledSteps = onVerifier.reduce((a, s) => a + s.endStep - s.startStep, 0)
    profileFullRun = {
      seconds: (onVerifier.reduce((a, s) => a + s.seconds, 0) / sampledSteps) * steps,
      source: `profileJob's replays of ${sampledSteps === steps ? 'every segment' : `${onVerifier.length} segments (${sampledSteps} of ${steps} steps, scaled)`} on the verifier runtime`,
    }
    profileSummary = {
      seeds: Array.from({length: plan.tolerance.profileSeeds}, (_, k) => (profileSeed(base) + k) % 2 ** 32),
      runtimeClass: profile.runtimeClass,
      samples: profile.samples.length,
      seconds: profile.seconds,
      observedWhole: profile.observed.whole,
      thresholdsWhole: whole,
      honestMargin: {},
    }
    log(`${tag(phase)} profile: ${profile.samples.length} replays in ${profile.seconds.toFixed(1)} s; whole l2 threshold ${whole.l2?.toExponential(2)}`)
  }

  // warm-up (not timed): the first training in a process pays for loading the backend and the data
  await trainJob({spec: withOverrides(base, plan, profileSeed(base) + 1), store: createLocalStore(path.join(root, 'warm-up')), backend: prover})
  await rm(path.join(root, 'warm-up'), {recursive: true, force: true})

  const proofs: Proof[] = []
  const honestReports: VerificationReport[] = []
  for (const strategy of strategyNames) {
    for (let task = 0; task < options.n; task++) {
      const trainingSeed = taskSeed(base, mode, task)
      const spec = withOverrides(base, plan, trainingSeed)
      const cheaterSeed = seedFor(`gensyn/bench/verification/v1 cheater job=${base.name} mode=${mode} strategy=${strategy} task=${task}`)
      const proof = await cheat({strategy, spec, store, backend: prover, seed: cheaterSeed})
      proofs.push({strategy, task, spec, manifestHash: proof.manifestHash, fakedSegments: proof.fakedSegments})
      const randomness = randomnessFor(`gensyn/bench/verification/v1 verify job=${base.name} mode=${mode} strategy=${strategy} task=${task}`)
      const report = await verifyProof({spec, store, manifestHash: proof.manifestHash, randomness, mode, thresholds, backend: verifierBackend})
      if (strategy === 'honest') honestReports.push(report)
      const record: VerificationRecord = {
        job: base.name,
        mode,
        strategy,
        task,
        trainingSeed,
        cheaterSeed,
        prover: runtimeIdString(proof.runtime),
        verifier: report.runtime === undefined ? null : runtimeIdString(report.runtime),
        proofSeconds: proof.seconds,
        computeFraction: proof.computeFraction,
        fakedSegments: proof.fakedSegments,
        sampled: plan.sampled,
        selectedSegments: report.selectedSegments,
        accepted: report.accepted,
        inconclusive: report.inconclusive,
        failedCheck: report.accepted ? null : failedCheck(report),
        reason: report.reason ?? null,
        ...replayStats(report),
        verifySeconds: report.seconds,
        planDetection: planDetection(segmentCount, plan.sampled, proof.fakedSegments),
      }
      records.push(record)
      const verdict = report.accepted ? 'accepted' : report.inconclusive ? `inconclusive (${report.reason})` : `rejected by ${record.failedCheck}`
      log(
        `${tag(phase)} ${strategy.padEnd(14)} task ${task}: proof ${proof.seconds.toFixed(2)} s, faked [${proof.fakedSegments.join(',')}], sampled [${report.selectedSegments.join(',')}] -> ${verdict} (${report.seconds.toFixed(2)} s)`,
      )
    }
  }

  // how close honest cross-runtime drift came to the thresholds
  if (profileSummary !== undefined && thresholds !== undefined)
    for (const segment of honestReports.flatMap((r) => r.segments))
      for (const metric of ['l1', 'l2', 'linf', 'cosine'] as const) {
        const limit = thresholds[metric]
        if (limit === undefined || limit === 0) continue
        profileSummary.honestMargin[metric] = Math.max(profileSummary.honestMargin[metric] ?? 0, segment.distances.whole[metric] / limit)
      }

  // timing: the honest proofs verified again one after another on the verifier runtime (as a verifier does;
  // in the matrix pass each verification follows its proof's training, often on another runtime), and full
  // replication (every segment of honest task 0 replayed), alternating so both share the machine's noise.
  // Where the verifier runtime is slow (cpu for the CNN) full replication comes from the profile's replays.
  const timing: {replaySeconds: number; verifySeconds: number; replayedSteps: number}[] = []
  const fullRuns: number[] = []
  let fullAccepted = true
  const fromProfile = mode === 'tolerance' && plan.tolerance.fullReplicationFromProfile && profileFullRun !== undefined
  const honestProofs = proofs.filter((p) => p.strategy === 'honest')
  const verifyAgain = (proof: Proof, segments?: number[]) =>
    verifyProof({
      spec: proof.spec,
      store,
      manifestHash: proof.manifestHash,
      randomness: randomnessFor(`gensyn/bench/verification/v1 verify job=${base.name} mode=${mode} strategy=honest task=${proof.task}`),
      segments,
      mode,
      thresholds,
      backend: verifierBackend,
    })
  for (let run = 0; run < (fromProfile ? 1 : options.fullReplicationRuns); run++) {
    for (const proof of honestProofs) {
      const report = await verifyAgain(proof)
      if (report.accepted) timing.push({...replayStats(report), verifySeconds: report.seconds})
    }
    const first = honestProofs[0]
    if (fromProfile || first === undefined) continue
    const report = await verifyAgain(first, Array.from({length: segmentCount}, (_, i) => i))
    fullAccepted &&= report.accepted
    fullRuns.push(replayStats(report).replaySeconds)
  }
  const fullReplication =
    fromProfile && profileFullRun !== undefined
      ? profileFullRun
      : {
          seconds: median(fullRuns),
          source: `verifyProof replaying all ${segmentCount} segments of honest task 0 (${fullAccepted ? 'accepted' : 'REJECTED'}), median of ${fullRuns.length} run(s): ${fullRuns.map((x) => x.toFixed(2)).join(', ')} s`,
        }

  const honest = records.filter((r) => r.job === base.name && r.mode === mode && r.strategy === 'honest')
  const honestFull = honest.filter((r) => r.accepted)
  const summary: ModeSummary = {
    ...phase,
    segmentCount,
    steps,
    checkpointInterval: plan.checkpointInterval,
    schedule,
    sampled: plan.sampled,
    prover: honest[0]?.prover ?? prover,
    verifier: honest.find((r) => r.verifier !== null)?.verifier ?? verifierBackend ?? prover,
    trainingSeconds: median(honest.map((r) => r.proofSeconds)),
    fullReplicationSeconds: fullReplication.seconds,
    fullReplicationSource: fullReplication.source,
    replaySeconds: median(timing.map((r) => r.replaySeconds)),
    verifySeconds: median(timing.map((r) => r.verifySeconds)),
    replayedSteps: median(timing.map((r) => r.replayedSteps)),
    matrixPassReplaySeconds: median(honestFull.map((r) => r.replaySeconds)),
    ...(profileSummary === undefined ? {} : {profile: profileSummary}),
  }
  log(`${tag(phase)} done in ${((performance.now() - phaseStarted) / 1000).toFixed(1)} s`)
  return {state: {...phase, plan, store, dir, proofs, thresholds, verifierBackend, schedule, segmentCount}, summary}
}

/** Strategies a plan of `sampled` segments does not catch with >= 99 % on this job (by the plan formula or as measured), in any mode. */
function strategiesNeedingCurve(records: readonly VerificationRecord[], job: string): StrategyName[] {
  return strategyNames.filter((strategy) => {
    if (strategy === 'honest') return false
    return (['exact', 'tolerance'] as const).some((mode) => {
      const rs = records.filter((r) => r.job === job && r.mode === mode && r.strategy === strategy)
      return rs.length > 0 && (mean(rs.map((r) => r.planDetection)) < 0.99 || cellRate(cellOf(rs)) < 0.99)
    })
  })
}

async function measureTradeoff(
  state: PhaseState,
  strategies: readonly StrategyName[],
  sizesOf: (strategy: StrategyName) => number[],
  draws: number,
  log: (line: string) => void,
): Promise<TradeoffPoint[]> {
  const points: TradeoffPoint[] = []
  for (const strategy of strategies) {
    const own = state.proofs.filter((p) => p.strategy === strategy)
    for (const sampled of sizesOf(strategy)) {
      let rejected = 0
      let accepted = 0
      let inconclusive = 0
      for (const proof of own)
        for (let draw = 0; draw < draws; draw++) {
          const randomness = randomnessFor(`gensyn/bench/verification/v1 tradeoff job=${state.job} mode=${state.mode} strategy=${strategy} task=${proof.task} s=${sampled} draw=${draw}`)
          const report = await verifyProof({
            spec: proof.spec,
            store: state.store,
            manifestHash: proof.manifestHash,
            randomness,
            segments: sampled,
            mode: state.mode,
            thresholds: state.thresholds,
            backend: state.verifierBackend,
          })
          if (report.accepted) accepted++
          else if (report.inconclusive) inconclusive++
          else rejected++
        }
      const point: TradeoffPoint = {
        job: state.job,
        label: state.label,
        mode: state.mode,
        strategy,
        sampled,
        rejected,
        accepted,
        inconclusive,
        planDetection: mean(own.map((p) => planDetection(state.segmentCount, sampled, p.fakedSegments))),
        replayedSteps: replayedSteps(state.schedule, sampled),
      }
      points.push(point)
      log(`${tag(state)} trade-off ${strategy} s=${sampled}: ${rejected}/${rejected + accepted} rejected, plan ${percent(point.planDetection)}`)
    }
  }
  return points
}

/** The largest checkpoint interval at which the 99 % plan against forge replays at most `budget` of the steps. */
export function fineInterval(spec: JobSpec, budget = 0.1): {checkpointInterval: number; segmentCount: number; sampled: number; replayedSteps: number} | undefined {
  for (let k = spec.proof.checkpointInterval; k >= 1; k--) {
    const schedule = checkpointSchedule({...spec, proof: {...spec.proof, checkpointInterval: k}})
    const n = schedule.length - 1
    if (n < 2) continue
    const sampled = segmentsForTarget({segmentCount: n, faked: Math.ceil((n - 1) / 2), target: 0.99})
    const steps = replayedSteps(schedule, sampled)
    if (steps / spec.training.steps <= budget) return {checkpointInterval: k, segmentCount: n, sampled, replayedSteps: steps}
  }
  return undefined
}

const fineStrategies: StrategyName[] = ['honest', 'forge', 'noise']

async function runFine(
  plan: JobPlan,
  base: JobSpec,
  coarseTrainingSeconds: number,
  root: string,
  options: VerificationBenchOptions,
  log: (line: string) => void,
): Promise<FineCheckpointResult | undefined> {
  const chosen = fineInterval(withOverrides(base, plan, base.training.seed))
  if (chosen === undefined) return undefined
  const started = performance.now()
  const {checkpointInterval, segmentCount, sampled} = chosen
  const phase: Phase = {job: base.name, label: plan.label, mode: 'exact'}
  const dir = path.join(root, `${base.name}-fine`)
  const store = createLocalStore(dir)
  const fine: JobPlan = {...plan, checkpointInterval, sampled}
  log(`${tag(phase)} finer checkpoints: interval ${checkpointInterval} (${segmentCount} segments), s = ${sampled}`)
  const cells: FineCheckpointResult['cells'] = []
  const honest: Proof[] = []
  const trainingSeconds: number[] = []
  try {
    for (const strategy of fineStrategies) {
      const cell = {strategy, rejected: 0, accepted: 0, inconclusive: 0, planDetection: 0, computeFraction: 0}
      for (let task = 0; task < options.n; task++) {
        const spec = withOverrides(base, fine, (base.training.seed + 200 + task) % 2 ** 32)
        const cheaterSeed = seedFor(`gensyn/bench/verification/v1 cheater job=${base.name} mode=fine strategy=${strategy} task=${task}`)
        const proof = await cheat({strategy, spec, store, seed: cheaterSeed})
        if (strategy === 'honest') {
          honest.push({strategy, task, spec, manifestHash: proof.manifestHash, fakedSegments: proof.fakedSegments})
          trainingSeconds.push(proof.seconds)
        }
        cell.planDetection += planDetection(segmentCount, sampled, proof.fakedSegments) / options.n
        cell.computeFraction += proof.computeFraction / options.n
        for (let draw = 0; draw < (options.fineDraws ?? options.draws); draw++) {
          const randomness = randomnessFor(`gensyn/bench/verification/v1 fine job=${base.name} strategy=${strategy} task=${task} draw=${draw}`)
          const report = await verifyProof({spec, store, manifestHash: proof.manifestHash, randomness})
          if (report.accepted) cell.accepted++
          else if (report.inconclusive) cell.inconclusive++
          else cell.rejected++
        }
      }
      cells.push(cell)
      log(`${tag(phase)} finer checkpoints, ${strategy}: ${cell.rejected}/${cell.rejected + cell.accepted} rejected, plan ${percent(cell.planDetection)}`)
    }
    // timing, as in runPhase: honest verifications alternating with full replication
    const timing: {replaySeconds: number; verifySeconds: number}[] = []
    const full: number[] = []
    for (let run = 0; run < options.fullReplicationRuns; run++) {
      for (const proof of honest) {
        const randomness = randomnessFor(`gensyn/bench/verification/v1 fine job=${base.name} strategy=honest task=${proof.task} draw=0`)
        const report = await verifyProof({spec: proof.spec, store, manifestHash: proof.manifestHash, randomness})
        if (report.accepted) timing.push({replaySeconds: replayStats(report).replaySeconds, verifySeconds: report.seconds})
      }
      const first = honest[0]
      if (first === undefined) continue
      const report = await verifyProof({
        spec: first.spec,
        store,
        manifestHash: first.manifestHash,
        randomness: randomnessFor('gensyn/bench/verification/v1 unused'),
        segments: Array.from({length: segmentCount}, (_, i) => i),
      })
      full.push(replayStats(report).replaySeconds)
    }
    log(`${tag(phase)} finer checkpoints done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    return {
      job: base.name,
      label: plan.label,
      checkpointInterval,
      segmentCount,
      steps: base.training.steps,
      sampled,
      replayedSteps: chosen.replayedSteps,
      cells,
      trainingSeconds: median(trainingSeconds),
      coarseTrainingSeconds,
      replaySeconds: median(timing.map((t) => t.replaySeconds)),
      verifySeconds: median(timing.map((t) => t.verifySeconds)),
      fullReplicationSeconds: median(full),
    }
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
}

export async function benchVerification(options: VerificationBenchOptions): Promise<VerificationBenchResult> {
  const started = performance.now()
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const jobs = options.jobs ?? defaultJobs
  const records: VerificationRecord[] = []
  const summaries: ModeSummary[] = []
  const tradeoff: TradeoffPoint[] = []
  const tradeoffSkipped: string[] = []
  const fine: FineCheckpointResult[] = []
  const root = await mkdtemp(path.join(os.tmpdir(), 'gensyn-bench-verification-'))
  try {
    for (const plan of jobs) {
      const base = await loadJobSpec(path.resolve(repoRoot, plan.file))
      const states: PhaseState[] = []
      for (const mode of ['exact', 'tolerance'] as const) {
        const {state, summary} = await runPhase(plan, base, mode, root, options, log, records)
        states.push(state)
        summaries.push(summary)
      }
      // trade-off, for the strategies that need it in either mode, measured in both modes where affordable
      const needed = strategiesNeedingCurve(records, base.name)
      const sizesOf = (state: PhaseState) => (strategy: StrategyName) => {
        const faked = records.filter((r) => r.job === base.name && r.strategy === strategy).map((r) => r.fakedSegments)
        let s99 = state.segmentCount
        for (let s = plan.sampled; s <= state.segmentCount; s++)
          if (mean(faked.map((f) => planDetection(state.segmentCount, s, f))) >= 0.99) {
            s99 = s
            break
          }
        return [...new Set([plan.sampled, 4, s99])].filter((s) => s >= plan.sampled && s <= state.segmentCount).sort((a, b) => a - b)
      }
      for (const state of states) {
        if (needed.length === 0) break
        if (state.mode === 'tolerance' && !plan.tolerance.measureTradeoff) {
          tradeoffSkipped.push(`${plan.label} tolerance: ${needed.join(', ')} (replays on ${plan.tolerance.verifier} are slow; formula only)`)
          continue
        }
        tradeoff.push(...(await measureTradeoff(state, needed, sizesOf(state), options.draws, log)))
      }
      for (const state of states) await rm(state.dir, {recursive: true, force: true})
      // finer checkpoints, exact mode: does a 99 % plan against forge fit the budget with more, shorter segments?
      if (options.fineCheckpoints !== false) {
        const coarse = summaries.find((s) => s.job === base.name && s.mode === 'exact')
        const result = await runFine(plan, base, coarse?.trainingSeconds ?? Number.NaN, root, options, log)
        if (result !== undefined) fine.push(result)
      }
    }
  } finally {
    await rm(root, {recursive: true, force: true})
  }
  return {
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}`,
    node: process.version,
    options: {n: options.n, draws: options.draws, fineDraws: options.fineDraws ?? options.draws, quick: options.quick, fullReplicationRuns: options.fullReplicationRuns},
    records,
    summaries,
    tradeoff,
    tradeoffSkipped,
    fine,
    seconds: (performance.now() - started) / 1000,
  }
}

const fixed = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a')
const sci = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toExponential(2))
const shortRuntime = (id: string) => id.split(' ')[0] ?? id

/** The printed report (plain aligned tables). */
export function formatVerificationBench(result: VerificationBenchResult, jobs: JobPlan[] = defaultJobs): string {
  const out: string[] = []
  const {records, summaries} = result
  const labels = [...new Set(summaries.map((s) => s.label))]
  const phaseRecords = (p: Phase, strategy: StrategyName) => records.filter((r) => r.job === p.job && r.mode === p.mode && r.strategy === strategy)
  const jobRecords = (label: string, strategy: StrategyName) => records.filter((r) => r.strategy === strategy && summaries.some((s) => s.label === label && s.job === r.job))

  out.push(`machine: ${result.machine}, node ${result.node}; N = ${result.options.n} tasks per strategy, job and mode${result.options.quick ? ' (BENCH_QUICK=1: a smoke run)' : ''}`)
  out.push('')
  out.push('setup')
  for (const s of summaries) {
    const file = jobs.find((j) => j.label === s.label)?.file ?? s.job
    out.push(
      s.mode === 'exact'
        ? `  ${s.label} ${s.mode}: ${file} with proof.checkpointInterval ${s.checkpointInterval} (${s.segmentCount} segments over ${s.steps} steps) and verification.segments ${s.sampled} (the final + ${s.sampled - 1} uniform); proofs made and replayed on ${s.prover}`
        : `  ${s.label} ${s.mode}: the same overrides; proofs made on ${s.prover}, replayed on ${s.verifier}; thresholds from profileJob over ${s.profile?.runtimeClass ?? '?'} on training seed(s) ${s.profile?.seeds.join(', ') ?? '?'} (${s.profile?.samples ?? 0} replays, ${fixed(s.profile?.seconds ?? Number.NaN, 1)} s)`,
    )
  }
  out.push("  task i is its own job: training.seed = the job's + i (exact) or + 100 + i (tolerance), never a profile seed (+ 10000);")
  out.push('  each proof has its own cheater seed, each verification its own randomness (sha256 of a label)')
  out.push('')

  // 1. matrix
  out.push('1. detection matrix: rejected / decided per strategy and job/mode (the honest row: false positives); "+k inc": inconclusive, counted as neither')
  out.push(
    table(
      ['strategy', ...summaries.map((p) => `${p.label} ${p.mode}`), `P(plan) s=${summaries[0]?.sampled ?? 2} ${labels.join('/')}`, 'compute', 'expected check', 'rejected by'],
      strategyNames.map((strategy) => {
        const all = records.filter((r) => r.strategy === strategy)
        const checks = [...new Set(all.map((r) => r.failedCheck).filter((c): c is string => c !== null))]
        return [
          strategy,
          ...summaries.map((p) => cellText(cellOf(phaseRecords(p, strategy)))),
          labels.map((label) => percent(mean(jobRecords(label, strategy).map((r) => r.planDetection)), 1)).join(' / '),
          fixed(mean(all.map((r) => r.computeFraction)), 2),
          describeStrategy(strategy).failsCheck ?? '-',
          checks.join(', ') || '-',
        ]
      }),
    ),
  )
  out.push("  P(plan): the exact chance that the plan replays a faked segment of the proof (plan formula on each proof's faked segments; mean over the job's proofs)")
  out.push("  compute: training steps the strategy ran / the job's steps (mean); expected check: describeStrategy(...).failsCheck")
  const fp = cellOf(records.filter((r) => r.strategy === 'honest'))
  out.push(`false-positive rate (honest tasks rejected): ${rate(fp.rejected, fp.rejected + fp.accepted)}${fp.inconclusive > 0 ? `, ${fp.inconclusive} inconclusive` : ''}`)
  const inconclusive = records.filter((r) => r.inconclusive)
  out.push(`inconclusive reports: ${inconclusive.length}${inconclusive.length > 0 ? ` (${[...new Set(inconclusive.map((r) => r.reason))].join('; ')})` : ''}`)
  for (const s of summaries) {
    const p = s.profile
    if (p === undefined) continue
    out.push(
      `  ${s.label} tolerance thresholds (whole weight vector): l1 ${sci(p.thresholdsWhole.l1)}, l2 ${sci(p.thresholdsWhole.l2)}, linf ${sci(p.thresholdsWhole.linf)}, cosine ${sci(p.thresholdsWhole.cosine)};` +
        ` largest honest drift / threshold: l1 ${sci(p.honestMargin.l1)}, l2 ${sci(p.honestMargin.l2)}, linf ${sci(p.honestMargin.linf)}, cosine ${sci(p.honestMargin.cosine)}`,
    )
  }
  out.push('')

  // 2. compute
  out.push('2. verification compute as a fraction of training compute (honest tasks, every sampled segment replayed; medians)')
  out.push(
    table(
      ['job mode', 'prover -> verifier', 'training s', 'full replication s', 'replay s', 'verify s', 'replay/full repl.', 'verify/full repl.', 'replay/training', 'steps replayed', 'steps fraction', 'full replication'],
      summaries.map((s) => [
        `${s.label} ${s.mode}`,
        `${shortRuntime(s.prover)} -> ${shortRuntime(s.verifier)}`,
        fixed(s.trainingSeconds, 2),
        fixed(s.fullReplicationSeconds, 2),
        fixed(s.replaySeconds, 3),
        fixed(s.verifySeconds, 3),
        percent(s.replaySeconds / s.fullReplicationSeconds),
        percent(s.verifySeconds / s.fullReplicationSeconds),
        percent(s.replaySeconds / s.trainingSeconds),
        `${s.replayedSteps}/${s.steps}`,
        percent(s.replayedSteps / s.steps),
        '100%',
      ]),
    ),
  )
  out.push("  training s: the honest proofs' trainJob on the prover runtime (checkpoints encoded, hashed and fsync'd);")
  out.push("  replay s: the sampled segments' replays, verify s: all of verifyProof (manifest, hashes, Merkle root, every blob read and re-hashed,")
  out.push('    initial weights, replays), both timed by verifying the honest proofs again one after another on the verifier runtime,')
  out.push(`    ${result.options.fullReplicationRuns} time(s), alternating with full replication (once where full replication comes from the profile);`)
  out.push(`    in the matrix pass, each right after its proof's training, the replays took ${summaries.map((s) => `${fixed(s.matrixPassReplaySeconds, 3)} s (${s.label} ${s.mode})`).join(', ')};`)
  out.push('  replay/training: against the prover\'s training; across runtimes this mixes their speeds (the like-for-like fraction is replay/full repl.);')
  out.push('  full replication s: replaying every segment on the verifier runtime (= 1.0 per verifier), measured as:')
  for (const s of summaries) out.push(`    ${s.label} ${s.mode}: ${s.fullReplicationSource}`)
  out.push('')

  // 3. trade-off
  out.push(`3. trade-off: detection by sample size s for the strategies a ${summaries[0]?.sampled ?? 2}-segment plan does not catch with >= 99 %`)
  let anyCurve = false
  for (const label of labels) {
    const exact = summaries.find((s) => s.label === label && s.mode === 'exact')
    if (exact === undefined) continue
    const flagged = strategyNames.filter(
      (strategy) =>
        strategy !== 'honest' &&
        summaries.some((s) => s.label === label && (mean(phaseRecords(s, strategy).map((r) => r.planDetection)) < 0.99 || cellRate(cellOf(phaseRecords(s, strategy))) < 0.99)),
    )
    if (flagged.length === 0) continue
    anyCurve = true
    out.push(`  ${label} (${exact.job}, ${exact.segmentCount} segments):`)
    for (const strategy of flagged) {
      const proofsOf = jobRecords(label, strategy)
      const nonFinal = proofsOf.map((r) => r.fakedSegments.filter((x) => x < exact.segmentCount - 1).length)
      const withFinal = proofsOf.filter((r) => r.fakedSegments.includes(exact.segmentCount - 1)).length
      const typical = Math.round(median(nonFinal))
      let forTarget = 'out of reach'
      try {
        if (typical > 0) forTarget = `s = ${segmentsForTarget({segmentCount: exact.segmentCount, faked: typical, target: 0.99})}`
      } catch {
        // nothing faked outside the final segment: no sample size helps or is needed
      }
      out.push(
        `    ${strategy}: faked non-final segments per proof ${nonFinal.join(', ')}; ${withFinal} of ${proofsOf.length} proofs also fake the final one (always caught); segmentsForTarget(n = ${exact.segmentCount}, faked = ${typical}, 99 %): ${forTarget}`,
      )
    }
    const measured = (strategy: StrategyName, mode: VerificationMode, s: number) => {
      const p = result.tradeoff.find((t) => t.label === label && t.strategy === strategy && t.mode === mode && t.sampled === s)
      return p === undefined ? '' : `${rate(p.rejected, p.rejected + p.accepted)}${p.inconclusive > 0 ? ` +${p.inconclusive} inc` : ''}`
    }
    const rows: string[][] = []
    const firstReaching = new Map<StrategyName, number>()
    for (let s = exact.sampled; s <= exact.segmentCount; s++) {
      const steps = replayedSteps(exact.schedule, s)
      const row = [String(s), `${steps}/${exact.steps}`, percent(steps / exact.steps)]
      for (const strategy of flagged) {
        const p = mean(jobRecords(label, strategy).map((r) => planDetection(exact.segmentCount, s, r.fakedSegments)))
        if (p >= 0.99 && !firstReaching.has(strategy)) firstReaching.set(strategy, s)
        row.push(`${percent(p, 2)}${firstReaching.get(strategy) === s ? ' *' : ''}`, measured(strategy, 'exact', s), measured(strategy, 'tolerance', s))
      }
      rows.push(row)
    }
    out.push(table(['    s', 'steps replayed', 'compute fraction', ...flagged.flatMap((st) => [`${st} P(plan)`, `${st} exact`, `${st} tolerance`])], rows))
    for (const strategy of flagged) {
      const s = firstReaching.get(strategy)
      out.push(
        s === undefined
          ? `    ${strategy}: 99 % is out of reach even replaying every segment`
          : `    ${strategy}: 99 % (* above) needs s = ${s}, ${percent(replayedSteps(exact.schedule, s) / exact.steps)} of the training steps (budget 10 %, full replication 100 %)`,
      )
    }
  }
  if (!anyCurve) out.push('  none')
  else {
    out.push(`  measured: each of the job's N proofs of the strategy verified with ${result.options.draws} fresh randomness draw(s) per s (rejected / decided)`)
    for (const skipped of result.tradeoffSkipped) out.push(`  not measured in ${skipped}`)
  }
  out.push('')

  // 4. finer checkpoints
  if (result.fine.length > 0) {
    out.push('4. finer checkpoints (exact mode): the largest checkpointInterval at which the 99 % plan against forge replays <= 10 % of the steps')
    out.push(
      table(
        ['job', 'interval', 'segments', 's', 'steps replayed', ...fineStrategies.map((st) => `${st} rejected`), 'forge P(plan)', 'train s (coarse)', 'full repl. s', 'replay s', 'verify s', 'replay/full repl.', 'verify/full repl.'],
        result.fine.map((f) => {
          const cell = (st: StrategyName) => f.cells.find((c) => c.strategy === st)
          return [
            f.label,
            String(f.checkpointInterval),
            String(f.segmentCount),
            String(f.sampled),
            `${f.replayedSteps}/${f.steps} = ${percent(f.replayedSteps / f.steps)}`,
            ...fineStrategies.map((st) => {
              const c = cell(st)
              return c === undefined ? 'n/a' : `${rate(c.rejected, c.rejected + c.accepted)}${c.inconclusive > 0 ? ` +${c.inconclusive} inc` : ''}`
            }),
            percent(cell('forge')?.planDetection ?? Number.NaN, 2),
            `${fixed(f.trainingSeconds, 2)} (${fixed(f.coarseTrainingSeconds, 2)})`,
            fixed(f.fullReplicationSeconds, 2),
            fixed(f.replaySeconds, 3),
            fixed(f.verifySeconds, 3),
            percent(f.replaySeconds / f.fullReplicationSeconds),
            percent(f.verifySeconds / f.fullReplicationSeconds),
          ]
        }),
      ),
    )
    out.push(`  each of N proofs per strategy verified with ${result.options.fineDraws} randomness draw(s) at s; train s: honest trainJob at this interval (at the coarse one in brackets): the prover pays for the extra checkpoints`)
    out.push('')
  }

  // verdict
  out.push('target: >= 99 % detection for every strategy, 0 false positives, <= 10 % of the training compute')
  out.push(`  false positives: ${fp.rejected} of ${fp.rejected + fp.accepted} honest tasks rejected -> ${fp.rejected === 0 && fp.accepted > 0 ? 'met' : 'NOT met'}`)
  const worstSeconds = Math.max(...summaries.map((s) => s.replaySeconds / s.fullReplicationSeconds))
  const worstSteps = Math.max(...summaries.map((s) => s.replayedSteps / s.steps))
  out.push(
    `  compute: at most ${percent(worstSteps)} of the training steps (${worstSteps <= 0.1 ? 'met' : 'NOT met'}), at most ${percent(worstSeconds)} of full replication's seconds (${worstSeconds <= 0.1 ? 'met' : 'over 10 %; timings on a shared machine are noisy, the step count is exact'})`,
  )
  const meets: string[] = []
  const misses: string[] = []
  for (const strategy of strategyNames) {
    if (strategy === 'honest') continue
    const measuredRate = cellRate(cellOf(records.filter((r) => r.strategy === strategy)))
    const planMin = Math.min(...summaries.map((s) => mean(phaseRecords(s, strategy).map((r) => r.planDetection))))
    if (measuredRate >= 0.99 && planMin >= 0.99) meets.push(strategy)
    else misses.push(`${strategy} (measured ${percent(measuredRate)}, P(plan) as low as ${percent(planMin)})`)
  }
  out.push(`  detection >= 99 % within that budget: met by ${meets.join(', ') || 'none'}; not met by ${misses.join(', ') || 'none'}`)
  for (const f of result.fine) {
    const forge = f.cells.find((c) => c.strategy === 'forge')
    const fpFine = f.cells.find((c) => c.strategy === 'honest')
    if (forge === undefined) continue
    out.push(
      `  ${f.label} with checkpointInterval ${f.checkpointInterval} (${f.segmentCount} segments) and s = ${f.sampled}: forge P(plan) ${percent(forge.planDetection, 2)}, measured ${rate(forge.rejected, forge.rejected + forge.accepted)}, ` +
        `false positives ${fpFine === undefined ? 'n/a' : rate(fpFine.rejected, fpFine.rejected + fpFine.accepted)}, ${percent(f.replayedSteps / f.steps)} of the steps, ${percent(f.replaySeconds / f.fullReplicationSeconds)} of full replication's seconds`,
    )
  }
  out.push(`total ${result.seconds.toFixed(0)} s`)
  return out.join('\n')
}

function envInt(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name}: expected a positive integer, got ${JSON.stringify(raw)}`)
  return value
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.env.BENCH_QUICK === '1' || process.env.BENCH_QUICK === 'true'
  const n = envInt('BENCH_N', quick ? 1 : 4)
  const draws = envInt('BENCH_DRAWS', quick ? 1 : 5)
  const fineDraws = envInt('BENCH_FINE_DRAWS', quick ? 1 : 25)
  // BENCH_PROVER=webgpu: the MLP only, its tolerance-mode proofs trained on webgpu and replayed on wasm
  const planned = process.env.BENCH_PROVER === 'webgpu' ? [webgpuMlpPlan] : defaultJobs
  const jobs = quick
    ? planned.map((j) => ({...j, tolerance: {...j.tolerance, profileSeeds: 1, profileSegments: j.tolerance.verifier === 'cpu' ? 5 : j.tolerance.profileSegments}}))
    : planned
  try {
    const result = await benchVerification({n, draws, fineDraws, quick, jobs, fullReplicationRuns: quick ? 1 : 3})
    console.log(formatVerificationBench(result, jobs))
    const target = process.env.BENCH_OUT
    if (target !== undefined && target !== '') {
      const file = target.endsWith('.json') ? path.resolve(target) : path.join(repoRoot, 'bench', 'results', 'verification.json')
      await mkdir(path.dirname(file), {recursive: true})
      await writeFile(file, `${JSON.stringify(result, null, 2)}\n`)
      console.log(`results: ${path.relative(process.cwd(), file) || file}`)
    }
  } catch (error) {
    console.error(`bench:verification failed: ${msg(error)}`)
    process.exitCode = 1
  }
}
