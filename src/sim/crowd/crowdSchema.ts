import {z} from 'zod'

const many = (fallback: number) => z.number().int().min(0).max(2000).default(fallback)

/**
 * Scale mode (docs/scenarios.md, "Crowds"): hundreds of lightweight actors sharing a few processes, on synthetic
 * work of declared cost, against the same contracts on the same anvil as every devnet.
 */
export const crowdSchema = z
  .strictObject({
    submitters: z.number().int().min(1).max(200).default(4).describe('submitter accounts that post the tasks (and settle them)'),
    solvers: many(120).describe('solvers, the first `cheaters` of them cheating'),
    verifiers: many(60).describe('verifiers, the first `lazyVerifiers` of them lazy'),
    whistleblowers: many(24).describe('whistleblowers: each re-checks accepted verdicts while fewer than maxActive others do'),
    cheaters: z.number().int().min(0).default(0).describe('solvers that commit a proof with one wrong segment'),
    lazyVerifiers: z.number().int().min(0).default(0).describe('verifiers that accept without replaying'),
    tasks: z.number().int().min(1).max(100_000).default(500).describe('tasks posted in all'),
    processes: z.number().int().min(1).max(16).default(2).describe('processes the crowd shares'),
    steps: z.number().int().min(1).max(1_000_000).default(100).describe('training steps per task'),
    checkpointInterval: z.number().int().min(1).default(10).describe('steps between two checkpoints of a synthetic proof'),
    workUnits: z.number().int().min(1).max(1_000_000).default(100).describe("each task's declared cost in work units (its escrow and training deadline follow from it)"),
    stepMs: z.number().min(0).max(60_000).default(20).describe('milliseconds a synthetic training step takes; a replayed step takes as long'),
    samples: z.number().int().min(1).max(64).default(2).describe('segments a verifier (and a whistleblower) replays per task, the final one always included'),
    maxActive: z.number().int().min(1).max(50).default(2).describe('a whistleblower re-checks a task while fewer than this many others do'),
    expect: z
      .strictObject({
        lifecyclesPerMinute: z.number().min(0).optional().describe('task lifecycles settled per minute of chain time, at least'),
        mibPerActor: z.number().min(0).optional().describe("MiB of peak resident memory per actor (the processes' peaks summed over the actors), at most"),
      })
      .default({})
      .describe('targets the run fails without'),
    openPerSubmitter: z.number().int().min(1).max(10_000).optional().describe('tasks a submitter keeps open at once (default: enough for every solver)'),
  })
  .refine((crowd) => crowd.cheaters <= crowd.solvers, {message: 'expected cheaters <= solvers', path: ['cheaters']})
  .refine((crowd) => crowd.lazyVerifiers <= crowd.verifiers, {message: 'expected lazyVerifiers <= verifiers', path: ['lazyVerifiers']})
  .refine((crowd) => crowd.solvers > crowd.cheaters, {message: 'expected at least one honest solver (solvers > cheaters)', path: ['solvers']})
  .refine((crowd) => crowd.verifiers > crowd.lazyVerifiers, {message: 'expected at least one honest verifier (verifiers > lazyVerifiers)', path: ['verifiers']})

export type Crowd = z.infer<typeof crowdSchema>
