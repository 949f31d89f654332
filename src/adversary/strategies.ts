import {AdversaryInputError} from './errors.js'

/** The solver strategies an actor can be given (`gensyn solve --strategy NAME`); docs/adversaries.md. */
export const strategyNames = ['honest', 'random-weights', 'skip-steps', 'wrong-data', 'copy', 'truncate', 'noise', 'forge'] as const

export type StrategyName = (typeof strategyNames)[number]

/** The verification check that rejects a strategy's proof (docs/checkpoint-format.md, section 6). */
export type CatchingCheck = 'initialWeights' | 'replay'

export type StrategyDescription = {
  /** What the strategy does, one sentence. */
  summary: string
  /** What it saves the cheater, with its compute fraction (training steps run / the job's steps). */
  saves: string
  /** Which verification check rejects it, and when. */
  caughtBy: string
  /** The check whose failure rejects the proof (null: an honest proof is accepted). */
  failsCheck: CatchingCheck | null
}

const descriptions: Record<StrategyName, StrategyDescription> = {
  honest: {
    summary: 'trains the job exactly as specified (trainJob) and commits its checkpoints',
    saves: 'nothing: compute fraction 1',
    caughtBy: 'nothing: every segment replays bit for bit, so every sample accepts it',
    failsCheck: null,
  },
  'random-weights': {
    summary: 'runs no training at all and commits random weights and optimizer state at every checkpoint, step 0 included',
    saves: 'all the training: compute fraction 0',
    caughtBy: 'the initial-weights check (step 0 is not the seed-derived state), before any replay; with an honest step 0 the replay of any segment, and the last segment is always sampled',
    failsCheck: 'initialWeights',
  },
  'skip-steps': {
    summary: 'trains only the first half of the steps, commits that state as the final one and linear interpolations between the initial and that state as the checkpoints in between',
    saves: 'half the training: compute fraction ceil(steps / 2) / steps (0.5 for an even step count)',
    caughtBy: 'the replay of any segment (every segment end is interpolated); the last segment is always sampled, so always',
    failsCheck: 'replay',
  },
  'wrong-data': {
    summary: 'trains every step, but on the first tenth of the training set only (each batch index folded modulo ceil(trainLimit / 10)), while the manifest names the real data set',
    saves: 'nine tenths of the data set to download, store and read; no compute: compute fraction 1',
    caughtBy: 'the replay of any segment (replays use the real batches); the last segment is always sampled, so always',
    failsCheck: 'replay',
  },
  copy: {
    summary: "presents another task's proof (copyFrom: a manifest hash in the store; without it, the same job trained with another seed) with the spec and data set hashes rewritten to this job's",
    saves: 'all the training when the source proof exists (compute fraction 0); without copyFrom the source is trained here first (compute fraction 1: the cost of a proof that is then resold)',
    caughtBy: "the initial-weights check when the source job's seed or model differs; the manifest check when its checkpoint schedule differs; the replay when only its data, optimizer or steps differ. A source with identical training fields is honest work and is accepted",
    failsCheck: 'initialWeights',
  },
  truncate: {
    summary: 'trains honestly up to the checkpoint at segment floor(n / 2) (n segments), then pads every later checkpoint with that last state relabelled to the later step',
    saves: 'the training after the stop: compute fraction schedule[floor(n / 2)] / steps (0.5 on smoke-mlp, 0.4 on mnist-cnn)',
    caughtBy: 'the replay of any segment after the stop; the last segment is always sampled, so always',
    failsCheck: 'replay',
  },
  noise: {
    summary: 'trains honestly, then adds uniform noise of at most 1e-5 to the weights of ceil(n / 2) checkpoints (steps > 0) chosen with its own seed, as one would to disguise a copied or cheaper run',
    saves: 'no compute (compute fraction 1); it shows that no perturbation, however small, survives an exact replay',
    caughtBy: 'the replay of a segment that ends or starts at a perturbed checkpoint; the last segment is among them when the final checkpoint is perturbed. Exact mode only: a tolerance mode accepts noise below its threshold',
    failsCheck: 'replay',
  },
  forge: {
    summary: 'a self-consistent proof: honest step 0, the last segment and about half of the others (chosen blindly with its own seed) trained honestly, the others linearised from one probe step with exact adam counters; every hash and the root recomputed',
    saves: 'about half the training: compute fraction (steps of the honest segments + one probe step per forged segment) / steps (0.51 on smoke-mlp)',
    caughtBy: 'only the replay of a forged segment: with n segments, m of the first n - 1 forged and s sampled, the detection probability is 1 - C(n - 1 - m, s - 1) / C(n - 1, s - 1) (2/3 on smoke-mlp with s = 2)',
    failsCheck: 'replay',
  },
}

export function isStrategyName(value: unknown): value is StrategyName {
  return typeof value === 'string' && (strategyNames as readonly string[]).includes(value)
}

/**
 * Checks a strategy name given by a user.
 *
 * @throws AdversaryInputError (exit code 2) naming the valid strategies
 */
export function parseStrategyName(value: unknown): StrategyName {
  if (isStrategyName(value)) return value
  throw new AdversaryInputError(`strategy: expected one of ${strategyNames.join(', ')}, got ${JSON.stringify(value)}`)
}

/** What a strategy does, what it saves the cheater and what catches it (for --help and docs/adversaries.md). */
export function describeStrategy(name: StrategyName): StrategyDescription {
  return {...descriptions[parseStrategyName(name)]}
}
