import {readFile} from 'node:fs/promises'
import path from 'node:path'

import {parse as parseYaml, YAMLParseError} from 'yaml'
import {z} from 'zod'

// strategies.js, not the index: the index brings the cheats' training code (tfjs), which a scenario never needs
import {strategyNames} from '../adversary/strategies.js'
import {InvalidInputError} from '../errors/base.js'
import {maxSeed, randomSeed} from '../random/randomSeed.js'
import {resolveFixturePath} from '../ml/spec/resolveFixturePath.js'
import {packageRoot} from '../util/packageRoot.js'
import {backendChoices, backendNames, type BackendChoice, type BackendName} from '../ml/backend/runtimeId.js'
import {crowdSchema} from './crowd/crowdSchema.js'

/** The package root: fixtures referenced by the embedded default scenario live under it. */

const actorRoles = ['submitter', 'solver', 'verifier', 'whistleblower'] as const
const backendChoice = z.enum(backendChoices as [BackendChoice, ...BackendChoice[]])
const count = (fallback: number) => z.number().int().min(0).max(50).default(fallback)
const ether = z.string().regex(/^\d+(\.\d+)?$/, 'expected an ETH amount as a decimal string, e.g. "0.5"')

const solverSchema = z.strictObject({
  /** `honest` trains for real; any other name plays that adversary. */
  strategy: z.enum(strategyNames).default('honest').describe('honest trains for real; any other name plays that cheating strategy (docs/adversaries.md)'),
  /** How long the solver waits after first seeing an open task before claiming it. */
  claimDelayMs: z.number().int().min(0).max(600_000).default(0).describe('milliseconds it waits after first seeing an open task before claiming it'),
  /** How it plays a dispute over its proof (docs/disputes.md); default: honest for `honest`, else `defend`. */
  disputeStance: z.enum(['honest', 'defend', 'staller']).optional().describe('how it plays a dispute over its proof; default honest for honest solvers, else defend (docs/disputes.md)'),
  /** Its ask in ETH per work unit (docs/market.md, section 3); default: the protocol's price floor. */
  ask: ether.optional().describe('its ask in ETH per work unit; default the protocol price floor (docs/market.md)'),
  /** Tasks at once it lists in its offer (its stake is topped up to as many solverStakes). */
  capacity: z.number().int().min(1).max(64).default(1).describe('tasks at once it lists in its offer (its stake is topped up to as many solverStakes)'),
  /** The supply shock: after this many seconds it withdraws its offer, finishes its task and exits. */
  leaveAfterSeconds: z.number().min(0).max(86_400).optional().describe('the supply shock: after this many seconds it withdraws its offer, finishes its task and exits'),
  /**
   * A devnet behaviour, not a proof strategy: the devnet kills (SIGKILL) the solver's process after the first
   * checkpoint it stores of a claimed task, and does not restart it (docs/market.md, section 5).
   */
  dropout: z.boolean().default(false).describe('the devnet SIGKILLs it after the first checkpoint it stores, and never restarts it'),
  backend: backendChoice.optional().describe("its TensorFlow.js backend; default the scenario's"),
})
export type ScenarioSolver = z.infer<typeof solverSchema>
const honestSolver: ScenarioSolver = {strategy: 'honest', claimDelayMs: 0, capacity: 1, dropout: false}

const verifierSchema = z.strictObject({
  /** `lazy` accepts without replaying; `colluding` accepts its partners' proofs unchecked (docs/adversaries.md). */
  strategy: z.enum(['honest', 'lazy', 'colluding']).default('honest').describe('lazy accepts without replaying; colluding accepts its partners proofs unchecked'),
  /** colluding: the solvers (0-based positions in actors.solvers) whose tasks it accepts unchecked. */
  colludeWith: z.array(z.number().int().min(0)).default([]).describe('colluding: the solvers (0-based positions in actors.solvers) whose tasks it accepts unchecked'),
  /** How long the verifier waits after first seeing a committed task before claiming it. */
  claimDelayMs: z.number().int().min(0).max(600_000).default(0).describe('milliseconds it waits after first seeing a committed task before claiming it'),
  backend: backendChoice.optional().describe("its TensorFlow.js backend; default the scenario's"),
  /** exact: bit-for-bit replays on the proof's runtime; tolerance: on its own backend, within the posted thresholds (docs/verification.md). */
  mode: z.enum(['exact', 'tolerance']).default('exact').describe("exact replays bit for bit on the proof's runtime; tolerance replays on its own backend within the thresholds of the profile the job pins (see profile)"),
})
export type ScenarioVerifier = z.infer<typeof verifierSchema>
const honestVerifier: ScenarioVerifier = {strategy: 'honest', colludeWith: [], claimDelayMs: 0, mode: 'exact'}

const whistleblowerSchema = z.strictObject({
  /** `griefer` challenges honest work with made-up claims. */
  strategy: z.enum(['honest', 'griefer']).default('honest').describe('griefer challenges honest work with made-up claims'),
  /** The litepaper's payout threshold: it joins while fewer whistleblowers are active, leaves above it. */
  maxActive: z.number().int().min(1).max(50).default(3).describe('it re-checks while fewer whistleblowers than this are active on a task'),
  /** Its cost to re-check a task (ETH): it joins only while its share of the expected jackpot covers it (docs/economics.md). */
  checkCost: ether.default('0').describe('ETH a re-check costs it: it joins while its share of the expected jackpot covers that, leaves when it does not'),
  /** exact: re-checks bit for bit on the proof's runtime; tolerance: on wasm, a proof made elsewhere (a GPU's) within the job's pinned thresholds. */
  mode: z
    .enum(['exact', 'tolerance'])
    .default('exact')
    .describe("exact re-checks bit for bit on the proof's runtime and skips a proof whose runtime it lacks; tolerance re-checks on wasm, a proof made elsewhere within the thresholds of the profile the job pins"),
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
  name: z.string().min(1).describe('shown in logs and the report'),
  description: z.string().optional().describe('one line on what the scenario shows'),
  backend: backendChoice.default('wasm').describe('TensorFlow.js backend of every actor without its own (wasm is bit-for-bit repeatable)'),
  /**
   * Before any actor starts, the devnet profiles every job across these runtimes (`gensyn profile --job --post`, as
   * the first honest verifier) and posts the thresholds; the submitters pin that verifier's profiles in their jobs
   * (`submit --thresholds-from`), and tolerance-mode verifiers judge by the pinned profiles only.
   */
  profile: z
    .strictObject({
      runtimes: z.array(z.enum(backendNames as [BackendName, ...BackendName[]])).min(1).describe('backends to compare; the first runs the reference runs'),
      seeds: z.number().int().min(1).max(1000).default(3).describe('reference runs (training seeds seed, seed + 1, ...)'),
      segments: z.number().int().min(1).optional().describe('segments replayed per seed (default: all)'),
    })
    .optional()
    .describe('profile every job across these runtimes and post its tolerance thresholds before the actors start; the submitters pin them'),
  actors: z
    .strictObject({
      submitters: z.number().int().min(1).max(50).default(1).describe('how many submitter accounts post the jobs (round robin)'),
      /** A count of honest solvers, or one entry per solver with its strategy (docs/adversaries.md). */
      solvers: actorList(solverSchema, () => ({...honestSolver}), 2).describe('a count of honest solvers, or one entry per solver'),
      verifiers: actorList(verifierSchema, () => ({...honestVerifier, colludeWith: []}), 2).describe('a count of honest verifiers, or one entry per verifier'),
      whistleblowers: actorList(whistleblowerSchema, () => ({strategy: 'honest' as const, maxActive: 3, checkCost: '0', mode: 'exact' as const}), 0).describe('a count of honest whistleblowers, or one entry per whistleblower'),
    })
    .describe('the actors per role; each runs as its own gensyn process')
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
        file: z.string().min(1).describe('path to a job.yaml, relative to the scenario file'),
        /** Which submitter (0-based) posts it; round robin when absent. */
        submitter: z.number().int().min(0).optional().describe('which submitter (0-based) posts it; round robin when absent'),
        /**
         * Seconds after the actors start before it is submitted (a demand shift). A submitter posts its jobs
         * one after another, so a job also waits for the same submitter's previous one to finish.
         */
        at: z.number().min(0).max(86_400).default(0).describe('seconds after the actors start before it is submitted; a submitter posts its jobs one after another'),
        /** Submit this many copies of the job at once (one `gensyn submit --count N`). */
        count: z.number().int().min(1).max(20).default(1).describe('copies of the job submitted at once'),
        /** An earlier job of this scenario whose wall time the report divides by this one's (a speed-up). */
        compareWith: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe("index of an earlier job of this scenario: the report's Jobs section gives that job's wall time over this one's (the speed-up)"),
      }),
    )
    .default([])
    .superRefine((jobs, ctx) => {
      for (const [index, job] of jobs.entries())
        if (job.compareWith !== undefined && job.compareWith >= index)
          ctx.addIssue({code: 'custom', message: `expected the index of an earlier job (below ${index}), got ${job.compareWith}`, path: [index, 'compareWith']})
    })
    .describe('the jobs, and when each arrives (at least one, unless the scenario has a crowd)'),
  crowd: crowdSchema
    .optional()
    .describe('scale mode: hundreds of lightweight actors in a few processes, on synthetic work of declared cost (docs/scenarios.md, "Crowds")'),
  chain: z
    .strictObject({
      blockTime: z.number().min(0.05).max(60).default(1).describe('seconds between blocks; a fraction (0.25) mines several blocks a second'),
      /** Blocks after a verdict in which it can be challenged (ProtocolConfig.challengeWindowBlocks). */
      challengeWindow: blocks.default(5).describe('blocks after a verdict in which it can be challenged'),
      unbondingDelay: z.number().int().min(0).default(60).describe('seconds between requestUnbond and withdraw'),
      solverStake: ether.default('1').describe('ETH a solver stakes per claimed task'),
      verifierStake: ether.default('0.5').describe('ETH a verifier stakes per verification'),
      accountBalance: z.number().int().positive().default(1000).describe('ETH each devnet account starts with'),
    })
    .describe('the chain: block time, windows and stakes')
    .default({blockTime: 1, challengeWindow: 5, unbondingDelay: 60, solverStake: '1', verifierStake: '0.5', accountBalance: 1000}),
  /** Overrides of ProtocolConfig's defaults (docs/disputes.md, docs/market.md), and ether to seed the jackpot with. */
  protocol: z
    .strictObject({
      challengeDeposit: ether.optional().describe('ETH a whistleblower deposits to challenge a verdict'),
      openWindow: blocks.optional().describe('blocks after the challenge window in which whistleblowers open their challenges'),
      revealWindow: blocks.optional().describe('blocks a solver has to reveal a forced error'),
      roundTimeout: blocks.optional().describe('blocks a party has to answer a dispute round before it loses'),
      committeeTimeout: blocks.optional().describe('blocks the arbitration committee has to vote'),
      taxBps: bps.optional().describe('share of every fee (basis points) that funds the jackpot'),
      forcedErrorBps: bps.optional().describe('chance (basis points) that a task is a forced error'),
      jackpotCap: ether.optional().describe('ETH the jackpot holds at most'),
      jackpotSeed: ether.default('0').describe('ETH the deployer puts in the jackpot at the start'),
      maxChallengers: z.number().int().min(1).max(255).optional().describe('challenges at most per verdict'),
      committeeSize: z.number().int().min(1).max(255).optional().describe('verifiers on an arbitration committee'),
      samples: z
        .number()
        .int()
        .min(1)
        .max(64)
        .optional()
        .describe("segments a verifier replays per task (every job's verification.segments; the final one always included)"),
      // The market (docs/market.md, "Parameters"): prices in ETH per work unit.
      initialPrice: ether.optional().describe('the posted price at deployment, ETH per work unit'),
      priceFloor: ether.optional().describe('lowest posted price, ETH per work unit'),
      priceCeiling: ether.optional().describe('highest posted price, ETH per work unit'),
      priceStepBps: bps.optional().describe('largest price move per epoch, basis points'),
      targetUtilizationBps: bps.optional().describe('utilisation the price controller steers to, basis points'),
      priceEpochBlocks: blocks.optional().describe('blocks between price moves'),
      verifierFeeBps: bps.optional().describe("verifier's fee as a share of the solver's, basis points"),
      timeoutSlashBps: bps.optional().describe("share of a solver's stake slashed when it misses its training deadline"),
      claimTimeoutSeconds: seconds.optional().describe('seconds an open task waits for a claim before it can be expired'),
      trainingBaseSeconds: seconds.optional().describe('fixed part of the training deadline, seconds'),
      minWorkUnitsPerSecond: z.number().int().min(1).optional().describe('speed the training deadline assumes, work units per second'),
      verificationTimeoutSeconds: seconds.optional().describe('seconds a verifier has to deliver its verdict'),
    })
    .default({jackpotSeed: '0'})
    .describe("overrides of the protocol's parameters; anything left out keeps its default"),
  expect: z
    .strictObject({
      verdict: z.enum(['accepted', 'rejected']).default('accepted').describe("every scenario task's final verdict"),
      minTestAccuracy: z.number().min(0).max(1).optional().describe('every accepted model reaches at least this test accuracy'),
      allSettled: z.boolean().default(true).describe('every task of the scenario settles; false for a run by durationSeconds that may end first'),
      /** Actors (by name, e.g. `lazy-verifier-1`) that must have lost stake to a slash. */
      slashed: z.array(z.string().min(1)).default([]).describe('actors (by name, e.g. cheater-1, lazy-verifier-1) that must lose stake to a slash'),
      /**
       * Cheaters whose faked proofs may pass unsampled: a scenario that measures a detection rate below 1
       * (`economics`) expects some of their tasks to be paid, which otherwise fails the run.
       */
      paidCheaters: z.array(z.string().min(1)).default([]).describe('cheaters (by name) whose faked proofs may pass unsampled: their paid tasks are not failures (a scenario that measures a detection rate below 1)'),
      /** Actors that must have been paid from the jackpot. */
      jackpotPaid: z.array(z.string().min(1)).default([]).describe('actors that must be paid from the jackpot'),
      /** Outcomes every dispute of the run must be among, and how many disputes there must be at least. */
      disputes: z
        .strictObject({
          min: z.number().int().min(0).default(0).describe('disputes there must be at least'),
          outcomes: z.array(z.enum(['ProverWon', 'ChallengerWon', 'BothWrong', 'Void'])).optional().describe('outcomes every dispute must be among'),
        })
        .default({min: 0}),
      /** Actors that must have lost stake to a training timeout (ClaimTimedOut). */
      timedOut: z.array(z.string().min(1)).default([]).describe('actors that must lose stake to a missed training deadline'),
      /** The market price must rise above where it was when the first solver withdrew its offer. */
      priceRises: z.boolean().default(false).describe('the posted price must rise after the first solver withdraws its offer'),
    })
    .default({verdict: 'accepted', allSettled: true, slashed: [], paidCheaters: [], jackpotPaid: [], disputes: {min: 0}, timedOut: [], priceRises: false})
    .describe('what must hold at the end; any failure makes the run exit 1. Always checked: money is conserved to the wei and no honest actor is slashed'),
  chaos: z
    .strictObject({
      kills: z.number().int().min(0).max(1000).describe('processes to SIGKILL over the run (devnet up --chaos N sets it)'),
      seed: z.number().int().min(0).default(1).describe('seeds the moments and the victims, so the chaos can be replayed'),
      roles: z.array(z.enum(actorRoles)).min(1).default([...actorRoles]).describe('roles it may kill; it spreads its kills over them'),
      minGapSeconds: z.number().min(0).max(3600).default(5).describe('least time between two kills (and from the start to the first)'),
      maxGapSeconds: z.number().min(0).max(3600).default(20).describe('most time between two kills'),
      patienceSeconds: z
        .number()
        .min(0)
        .max(3600)
        .default(20)
        .describe('once armed, how long it waits for a busy actor of a role it has hit least before any role will do'),
    })
    .refine((chaos) => chaos.minGapSeconds <= chaos.maxGapSeconds, {message: 'expected minGapSeconds <= maxGapSeconds', path: ['maxGapSeconds']})
    .optional()
    .describe('kill actors at random moments while they work; the devnet restarts them and the run must still settle (docs/reliability.md)'),
  seed: z
    .number()
    .int()
    .min(0)
    .max(maxSeed)
    .optional()
    .describe("derives every actor's keys, secrets and random choices, so a run with the same seed replays them (devnet up --seed N sets it; without one a run picks a seed and records it)"),
  untilSettled: z.boolean().default(false).describe('stop once every job has settled (as --until-settled does)'),
  durationSeconds: z
    .number()
    .int()
    .positive()
    .max(86_400)
    .optional()
    .describe('stop after this many seconds, report and check the expectations (unless untilSettled ends the run first)'),
  /** The whole run fails if its jobs have not settled by then. */
  timeoutSeconds: z.number().int().positive().default(1800).describe('an --until-settled run fails if its jobs have not settled by then'),
}).describe('a gensyn devnet scenario (docs/scenarios.md)')

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

export async function loadScenario(argument: string): Promise<ResolvedScenario> {
  // a bare name (`weather-csv`) names a shipped scenario
  const file = resolveFixturePath('scenarios', argument)
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
  if (parsed.success && parsed.data.jobs.length === 0 && !parsed.data.crowd) throw new InvalidInputError(`${file}: jobs: expected at least one job (or a crowd)`)
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

/** The scenario with `kills` chaos kills (devnet up --chaos N), the rest of its chaos settings kept or defaulted. */
export function withChaos(scenario: ResolvedScenario, kills: number | undefined, seed: number | undefined): ResolvedScenario {
  if (kills === undefined) return scenario
  const chaos = scenarioSchema.shape.chaos.parse({...scenario.chaos, kills, ...(seed === undefined ? {} : {seed})})
  return {...scenario, chaos}
}

/**
 * The scenario with the seed its run uses: `seed` (devnet up --seed N), else the scenario's own, else a fresh one,
 * so every run records a seed it can be replayed with (docs/scenarios.md, "Seeds").
 */
export function withSeed(scenario: ResolvedScenario, seed: number | undefined): ResolvedScenario {
  return {...scenario, seed: seed ?? scenario.seed ?? randomSeed()}
}
