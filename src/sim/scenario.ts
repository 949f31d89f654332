import {readFile} from 'node:fs/promises'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {parse as parseYaml, YAMLParseError} from 'yaml'
import {z} from 'zod'

import {strategyNames} from '../adversary/index.js'
import {InvalidInputError} from '../errors/base.js'

/** The package root: fixtures referenced by the embedded default scenario live under it. */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

const count = (fallback: number) => z.number().int().min(0).max(50).default(fallback)
const ether = z.string().regex(/^\d+(\.\d+)?$/, 'expected an ETH amount as a decimal string, e.g. "0.5"')

const solverSchema = z.strictObject({
  /** `honest` trains for real; any other name plays that adversary. */
  strategy: z.enum(strategyNames).default('honest'),
  /** How long the solver waits after first seeing an open task before claiming it. */
  claimDelayMs: z.number().int().min(0).max(600_000).default(0),
  /** How it plays a dispute over its proof (docs/disputes.md); default: honest for `honest`, else `defend`. */
  disputeStance: z.enum(['honest', 'defend', 'staller']).optional(),
  /** Its ask in ETH per work unit (docs/market.md, section 3); default: the protocol's price floor. */
  ask: ether.optional(),
  /** Tasks at once it lists in its offer. */
  capacity: z.number().int().min(1).max(64).default(1),
  /** The supply shock: after this many seconds it withdraws its offer, finishes its task and exits. */
  leaveAfterSeconds: z.number().min(0).max(86_400).optional(),
  /**
   * A devnet behaviour, not a proof strategy: the devnet kills (SIGKILL) the solver's process after the first
   * checkpoint it stores of a claimed task, and does not restart it (docs/market.md, section 5).
   */
  dropout: z.boolean().default(false),
})
export type ScenarioSolver = z.infer<typeof solverSchema>
const honestSolver: ScenarioSolver = {strategy: 'honest', claimDelayMs: 0, capacity: 1, dropout: false}

const verifierSchema = z.strictObject({
  /** `lazy` accepts without replaying; `colluding` accepts its partners' proofs unchecked (docs/adversaries.md). */
  strategy: z.enum(['honest', 'lazy', 'colluding']).default('honest'),
  /** colluding: the solvers (0-based positions in actors.solvers) whose tasks it accepts unchecked. */
  colludeWith: z.array(z.number().int().min(0)).default([]),
  /** How long the verifier waits after first seeing a committed task before claiming it. */
  claimDelayMs: z.number().int().min(0).max(600_000).default(0),
})
export type ScenarioVerifier = z.infer<typeof verifierSchema>
const honestVerifier: ScenarioVerifier = {strategy: 'honest', colludeWith: [], claimDelayMs: 0}

const whistleblowerSchema = z.strictObject({
  /** `griefer` challenges honest work with made-up claims. */
  strategy: z.enum(['honest', 'griefer']).default('honest'),
  /** The litepaper's payout threshold: it joins while fewer whistleblowers are active, leaves above it. */
  maxActive: z.number().int().min(1).max(50).default(3),
})
export type ScenarioWhistleblower = z.infer<typeof whistleblowerSchema>

/** A count of honest actors, or one entry per actor with its strategy. */
function actorList<T extends z.ZodType>(entry: T, honest: () => z.output<T>, fallback: number) {
  return z
    .union([count(fallback), z.array(entry).max(50)])
    .transform((list): z.output<T>[] => (typeof list === 'number' ? Array.from({length: list}, honest) : (list as z.output<T>[])))
}

const bps = z.number().int().min(0).max(10_000)
const blocks = z.number().int().min(1).max(100_000)
const seconds = z.number().int().min(1).max(365 * 86_400)

export const scenarioSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  backend: z.enum(['wasm', 'cpu', 'gpu']).default('wasm'),
  actors: z
    .strictObject({
      submitters: count(1).pipe(z.number().min(1)),
      /** A count of honest solvers, or one entry per solver with its strategy (docs/adversaries.md). */
      solvers: actorList(solverSchema, () => ({...honestSolver}), 2),
      verifiers: actorList(verifierSchema, () => ({...honestVerifier, colludeWith: []}), 2),
      whistleblowers: actorList(whistleblowerSchema, () => ({strategy: 'honest' as const, maxActive: 3}), 0),
    })
    .default({
      submitters: 1,
      solvers: [{...honestSolver}, {...honestSolver}],
      verifiers: [{...honestVerifier, colludeWith: []}, {...honestVerifier, colludeWith: []}],
      whistleblowers: [],
    }),
  jobs: z
    .array(
      z.strictObject({
        /** Path to a job.yaml, relative to the scenario file. */
        file: z.string().min(1),
        /** Which submitter (0-based) posts it; round robin when absent. */
        submitter: z.number().int().min(0).optional(),
        /**
         * Seconds after the actors start before it is submitted (a demand shift). A submitter posts its jobs
         * one after another, so a job also waits for the same submitter's previous one to finish.
         */
        at: z.number().min(0).max(86_400).default(0),
        /** Submit this many copies of the job at once (one `gensyn submit --count N`). */
        count: z.number().int().min(1).max(20).default(1),
      }),
    )
    .min(1),
  chain: z
    .strictObject({
      blockTime: z.number().int().positive().max(60).default(1),
      /** Blocks after a verdict in which it can be challenged (ProtocolConfig.challengeWindowBlocks). */
      challengeWindow: blocks.default(5),
      unbondingDelay: z.number().int().min(0).default(60),
      solverStake: ether.default('1'),
      verifierStake: ether.default('0.5'),
      accountBalance: z.number().int().positive().default(1000),
    })
    .default({blockTime: 1, challengeWindow: 5, unbondingDelay: 60, solverStake: '1', verifierStake: '0.5', accountBalance: 1000}),
  /** Overrides of ProtocolConfig's defaults (docs/disputes.md), and ether to seed the jackpot with. */
  protocol: z
    .strictObject({
      challengeDeposit: ether.optional(),
      revealWindow: blocks.optional(),
      roundTimeout: blocks.optional(),
      committeeTimeout: blocks.optional(),
      taxBps: bps.optional(),
      forcedErrorBps: bps.optional(),
      jackpotCap: ether.optional(),
      jackpotSeed: ether.default('0'),
      maxChallengers: z.number().int().min(1).max(255).optional(),
      committeeSize: z.number().int().min(1).max(255).optional(),
      // The market (docs/market.md, "Parameters"): prices in ETH per work unit.
      initialPrice: ether.optional(),
      priceFloor: ether.optional(),
      priceCeiling: ether.optional(),
      priceStepBps: bps.optional(),
      targetUtilizationBps: bps.optional(),
      priceEpochBlocks: blocks.optional(),
      verifierFeeBps: bps.optional(),
      timeoutSlashBps: bps.optional(),
      claimTimeoutSeconds: seconds.optional(),
      trainingBaseSeconds: seconds.optional(),
      minWorkUnitsPerSecond: z.number().int().min(1).optional(),
      verificationTimeoutSeconds: seconds.optional(),
    })
    .default({jackpotSeed: '0'}),
  expect: z
    .strictObject({
      verdict: z.enum(['accepted', 'rejected']).default('accepted'),
      minTestAccuracy: z.number().min(0).max(1).optional(),
      /** Actors (by name, e.g. `lazy-verifier-1`) that must have lost stake to a slash. */
      slashed: z.array(z.string().min(1)).default([]),
      /** Actors that must have been paid from the jackpot. */
      jackpotPaid: z.array(z.string().min(1)).default([]),
      /** Outcomes every dispute of the run must be among, and how many disputes there must be at least. */
      disputes: z
        .strictObject({min: z.number().int().min(0).default(0), outcomes: z.array(z.enum(['ProverWon', 'ChallengerWon', 'BothWrong', 'Void'])).optional()})
        .default({min: 0}),
      /** Actors that must have lost stake to a training timeout (ClaimTimedOut). */
      timedOut: z.array(z.string().min(1)).default([]),
      /** The market price must rise above where it was when the first solver withdrew its offer. */
      priceRises: z.boolean().default(false),
    })
    .default({verdict: 'accepted', slashed: [], jackpotPaid: [], disputes: {min: 0}, timedOut: [], priceRises: false}),
  /** The whole run fails if its jobs have not settled by then. */
  timeoutSeconds: z.number().int().positive().default(1800),
})

export type Scenario = z.infer<typeof scenarioSchema>
export type ScenarioJob = Scenario['jobs'][number] & {/** Absolute path of the job spec. */ path: string}
export type ResolvedScenario = Omit<Scenario, 'jobs'> & {source: string; jobs: ScenarioJob[]}

/** The embedded default: 1 submitter, 2 solvers, 2 verifiers, 1 whistleblower and one MNIST MLP job. */
export const defaultScenario: Scenario = scenarioSchema.parse({
  name: 'default',
  description: 'One MNIST MLP trained by one of two solvers, checked by one of two verifiers and re-checked by a whistleblower, at the default protocol parameters (forced errors included) with a seeded jackpot.',
  actors: {submitters: 1, solvers: 2, verifiers: 2, whistleblowers: 1},
  jobs: [{file: 'mnist-mlp.yaml'}],
  protocol: {jackpotSeed: '1'},
  expect: {verdict: 'accepted', minTestAccuracy: 0.85},
})

export function resolveDefaultScenario(): ResolvedScenario {
  return resolveJobs(defaultScenario, '(embedded default)', path.join(packageRoot, 'fixtures', 'jobs'))
}

export async function loadScenario(file: string): Promise<ResolvedScenario> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    throw new InvalidInputError(`--scenario: file not found: ${file}`)
  }
  let raw: unknown
  try {
    raw = parseYaml(text)
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? `:${error.linePos[0].line}:${error.linePos[0].col}` : ''
    throw new InvalidInputError(`${file}${where}: malformed YAML: ${(error as Error).message.split('\n')[0]}`)
  }
  const parsed = scenarioSchema.safeParse(raw)
  if (!parsed.success) {
    const [issue] = parsed.error.issues
    const field = issue?.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('').replace(/^\./, '')
    throw new InvalidInputError(`${file}: ${field || '(root)'}: ${issue?.message ?? 'invalid scenario'}`, {details: parsed.error.message})
  }
  return resolveJobs(parsed.data, file, path.dirname(path.resolve(file)))
}

function resolveJobs(scenario: Scenario, source: string, baseDir: string): ResolvedScenario {
  return {...scenario, source, jobs: scenario.jobs.map((job) => ({...job, path: path.resolve(baseDir, job.file)}))}
}
