import {writeFile} from 'node:fs/promises'

import {Flags} from '@oclif/core'
import type {Hex} from 'viem'

import {InvalidInputError} from '../errors/base.js'
import {backendNames, type BackendName} from '../ml/backend/index.js'
import {loadLocalJob} from '../ml/data/loadLocalJob.js'
import {profileJob, smallProfileNotice, type ProfileResult} from '../pol/index.js'
import {loadTaskSpec} from '../protocol/loadTaskSpec.js'
import {connect, requireSigner} from '../protocol/connect.js'
import {getTask} from '../protocol/getTask.js'
import {type PostedProfile, postProfile} from '../protocol/postProfile.js'
import {BaseCommand} from '../ui/baseCommand.js'
import {connectOptionsFrom} from '../ui/connectOptions.js'
import {connectionFlags, threadsFlag} from '../ui/flags.js'
import {setTrainingThreads} from '../ml/train/threads/trainingThreads.js'
import {parseTaskId} from '../ui/parseTaskId.js'
import {createProgress, type Progress} from '../ui/progress.js'
import {renderTable} from '../ui/renderTable.js'
import {unmappedDataNotice} from '../privacy/unmappedDataNotice.js'

/** The profile, plus what was posted on chain with --task. */
export type ProfileOutput = ProfileResult & {
  posted?: Omit<PostedProfile, 'transaction'> & {transactionHash: Hex; gasUsed: bigint}
  /** What the thresholds do not stand for (a private job file profiled on raw data). */
  warnings: string[]
}

export default class Profile extends BaseCommand {
  static override summary = 'Measure how far honest replays drift apart, and derive distance thresholds for tolerance mode.'
  static override description =
    'Trains a reference run of the job, then replays segments of it on every runtime given (and with other seeds when asked), measures the l1, l2, l∞ and cosine distances between honest replays of the same segment, and derives thresholds with the rule in docs/verification.md. `verify --mode tolerance --thresholds FILE` uses them.'
  static override examples = [
    {description: 'Profile the MLP job across wasm and cpu, saving the thresholds', command: '<%= config.bin %> <%= command.id %> --job fixtures/jobs/mnist-mlp.yaml --out thresholds.json'},
    {description: 'A quicker profile: 3 segments, two seeds, JSON for a script', command: '<%= config.bin %> <%= command.id %> --job fixtures/jobs/smoke-mlp.yaml --segments 3 --seeds 2 --json'},
    {description: "Profile a task's job on the devnet and post the threshold on chain as verifier account 4", command: '<%= config.bin %> <%= command.id %> --task 1 --account 4'},
    {description: 'Profile webgpu against wasm over 50 seeds and post the threshold before any task exists', command: '<%= config.bin %> <%= command.id %> --job fixtures/jobs/smoke-mlp.yaml --runtimes webgpu,wasm --seeds 50 --post --account 4'},
  ]
  static override flags = {
    ...connectionFlags,
    threads: threadsFlag,
    'threshold-registry': Flags.string({description: 'ThresholdRegistry address (defaults to the devnet one).', env: 'GENSYN_THRESHOLD_REGISTRY', helpGroup: 'CONNECTION'}),
    job: Flags.string({description: 'The job spec (YAML) to profile, with no chain.', exactlyOne: ['job', 'task']}),
    task: Flags.string({description: "Profile this task's job and post the threshold on chain (needs a verifier's key).", exactlyOne: ['job', 'task']}),
    runtimes: Flags.string({description: 'Comma-separated backends to compare; the first runs the reference.', default: 'wasm,cpu'}),
    segments: Flags.integer({description: 'Segments replayed per seed, spread over the job (default: all).', min: 1}),
    seeds: Flags.integer({description: 'Reference runs with training seeds seed, seed + 1, …', min: 1, default: 1}),
    out: Flags.string({description: 'Write the result (thresholds, rule, samples) as JSON to this file.'}),
    post: Flags.boolean({description: "With --job: post the threshold on chain for the job's model class (needs a verifier's key), as --task does.", dependsOn: ['job']}),
  }

  async run(): Promise<ProfileOutput> {
    const {flags} = await this.parse(Profile)
    setTrainingThreads(flags.threads)
    const runtimes = flags.runtimes.split(',').map((name) => name.trim())
    const unknown = runtimes.find((name) => !(backendNames as readonly string[]).includes(name))
    if (unknown !== undefined) throw new InvalidInputError(`--runtimes: expected names from ${backendNames.join(', ')}, got "${unknown}"`)
    const taskId = flags.task === undefined ? undefined : parseTaskId(flags.task)
    const connection = taskId === undefined && !flags.post ? undefined : requireSigner(await connect({...connectOptionsFrom(flags, true), thresholds: flags['threshold-registry']}))
    const spec = taskId !== undefined && connection ? await loadTaskSpec(connection, await getTask(connection, {taskId})) : await loadLocalJob(flags.job!)
    const unmapped = unmappedDataNotice(spec, 'these thresholds are for raw data; `gensyn profile --task ID` profiles a submitted task on its mapped data')
    if (unmapped) this.warn(unmapped)
    const warnings = unmapped ? [unmapped] : []
    let bar: Progress | undefined
    const profiled = await profileJob({
      spec,
      runtimes: runtimes as BackendName[],
      segments: flags.segments,
      seeds: flags.seeds,
      onProgress: (progress) => {
        if (progress.kind !== 'sample') return
        bar ??= createProgress({label: 'replays', total: progress.total, enabled: !flags.json})
        bar.update(progress.done, progress.sample.replay)
      },
    })
    bar?.stop()
    const small = smallProfileNotice(profiled.samples)
    if (small) {
      this.warn(small)
      warnings.push(small)
    }
    const result: ProfileOutput = {...profiled, warnings}
    if (flags.out) await writeFile(flags.out, `${JSON.stringify(result, null, 2)}\n`)
    this.log(`runtime class: ${result.runtimeClass}${result.unavailable.length ? ` (unavailable: ${result.unavailable.map((entry) => entry.backend).join(', ')})` : ''}`)
    this.log(`${result.samples.length} honest replays compared`)
    const metrics = ['l1', 'l2', 'linf', 'cosine'] as const
    this.log(
      renderTable(
        ['METRIC', 'LARGEST OBSERVED', 'THRESHOLD'],
        [
          ...metrics.map((metric) => [metric, result.observed.whole[metric].toExponential(3), (result.thresholds[metric] ?? Number.NaN).toExponential(3)]),
          ...(result.observed.update === undefined ? [] : [['update', result.observed.update.toExponential(3), (result.thresholds.update ?? Number.NaN).toExponential(3)]]),
        ],
      ),
    )
    this.log(`rule: ${result.rule}`)
    if (flags.out) this.log(`wrote ${flags.out}`)
    if (!connection) return result
    const posted = await postProfile(connection, {spec, profile: result})
    this.log(`posted threshold ${result.thresholds.linf?.toExponential(3)} (l∞) for model class ${posted.modelClass.slice(0, 10)}… and runtime class ${posted.runtimeClass.slice(0, 10)}…; profile ${posted.profileHash}`)
    const {transaction, ...onChain} = posted
    return {...result, posted: {...onChain, transactionHash: transaction.hash, gasUsed: transaction.gasUsed}}
  }
}
