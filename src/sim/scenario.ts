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
})
export type ScenarioSolver = z.infer<typeof solverSchema>
const honestSolver: ScenarioSolver = {strategy: 'honest', claimDelayMs: 0}

export const scenarioSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  backend: z.enum(['wasm', 'cpu', 'gpu']).default('wasm'),
  actors: z
    .strictObject({
      submitters: count(1).pipe(z.number().min(1)),
      /** A count of honest solvers, or one entry per solver with its strategy (docs/adversaries.md). */
      solvers: z
        .union([count(2), z.array(solverSchema).max(50)])
        .transform((solvers) => (typeof solvers === 'number' ? Array.from({length: solvers}, () => ({...honestSolver})) : solvers)),
      verifiers: count(2),
    })
    .default({submitters: 1, solvers: [{...honestSolver}, {...honestSolver}], verifiers: 2}),
  jobs: z
    .array(
      z.strictObject({
        /** Path to a job.yaml, relative to the scenario file. */
        file: z.string().min(1),
        /** Which submitter (0-based) posts it; round robin when absent. */
        submitter: z.number().int().min(0).optional(),
      }),
    )
    .min(1),
  chain: z
    .strictObject({
      blockTime: z.number().int().positive().max(60).default(1),
      challengeWindow: z.number().int().min(0).default(5),
      unbondingDelay: z.number().int().min(0).default(60),
      solverStake: ether.default('1'),
      verifierStake: ether.default('0.5'),
      accountBalance: z.number().int().positive().default(1000),
    })
    .default({blockTime: 1, challengeWindow: 5, unbondingDelay: 60, solverStake: '1', verifierStake: '0.5', accountBalance: 1000}),
  expect: z
    .strictObject({
      verdict: z.enum(['accepted', 'rejected']).default('accepted'),
      minTestAccuracy: z.number().min(0).max(1).optional(),
    })
    .default({verdict: 'accepted'}),
  /** The whole run fails if its jobs have not settled by then. */
  timeoutSeconds: z.number().int().positive().default(1800),
})

export type Scenario = z.infer<typeof scenarioSchema>
export type ScenarioJob = Scenario['jobs'][number] & {/** Absolute path of the job spec. */ path: string}
export type ResolvedScenario = Omit<Scenario, 'jobs'> & {source: string; jobs: ScenarioJob[]}

/** The embedded default: 1 submitter, 2 solvers, 2 verifiers and one MNIST MLP job. */
export const defaultScenario: Scenario = scenarioSchema.parse({
  name: 'default',
  description: 'One MNIST MLP trained by one of two solvers and checked by one of two verifiers.',
  jobs: [{file: 'mnist-mlp.yaml'}],
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
