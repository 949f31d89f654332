import {Args, Flags} from '@oclif/core'
import {formatEther, formatUnits} from 'viem'

import {parseTaskIds} from '../actors/adoptTasks.js'
import {submitJob, type SubmitJobResult, type SubmittedTask} from '../actors/submitJob.js'
import {BaseCommand} from '../ui/baseCommand.js'
import {connectOptionsFrom} from '../ui/connectOptions.js'
import {parseAddresses} from '../ui/parseAddresses.js'
import {backendFlag, connectionFlags} from '../ui/flags.js'
import {createMultiProgress, type MultiProgress, type Progress} from '../ui/progress.js'
import {describeSettle} from '../ui/taskView.js'
import {renderTable} from '../ui/renderTable.js'
import {type BackendChoice} from '../ml/backend/runtimeId.js'

export default class Submit extends BaseCommand {
  static override summary = 'Submit a training job: validate its spec, publish it and escrow the fee.'
  static override description =
    "Reads a job.yaml, validates it, estimates its work units (docs/market.md), stores the spec in the blob store and posts the task with its escrow: work units x payment.maxPrice plus the verifier fee. A job with `split: {tasks: N}` is posted as N tasks at once, task i + 1 naming task i as its parent (it starts from task i's verified final checkpoint). With --wait it shows one progress bar per task, follows every task through training, verification, the challenge and reveal windows and any dispute, reopening, timeout or re-verification, calls settle until each is done, then reports per task the escrow, what was paid and what was refunded, and the delivered model's test accuracy."
  static override examples = [
    {description: 'Check a job spec and see its escrow without touching a chain', command: '<%= config.bin %> <%= command.id %> fixtures/jobs/mnist-mlp.yaml --dry-run'},
    {description: 'Submit to the local devnet as account 1 and wait for the trained model', command: '<%= config.bin %> <%= command.id %> fixtures/jobs/mnist-mlp.yaml --account 1 --wait'},
    {description: 'A job split into 3 stacked tasks, one progress bar each', command: '<%= config.bin %> <%= command.id %> fixtures/scenarios/jobs/smoke-split.yaml --account 1 --wait'},
    {description: 'A parallel split: 2 rounds of 4 shard tasks, each round starting from the mean of the one before', command: '<%= config.bin %> <%= command.id %> fixtures/scenarios/jobs/parallel-split.yaml --account 1 --wait'},
    {description: 'Three copies of a job at once (a demand spike)', command: '<%= config.bin %> <%= command.id %> fixtures/jobs/smoke-mlp.yaml --count 3 --wait'},
    {description: 'Pick up a job whose `submit --wait` was stopped after posting task 4: follow it, post nothing', command: '<%= config.bin %> <%= command.id %> fixtures/jobs/smoke-mlp.yaml --account 1 --wait --task-ids 4'},
    {
      description: 'A private job (privacy: {mapping: orthogonal}): the data is mapped here, only the mapped set is published, the key stays in .gensyn/keys',
      command: '<%= config.bin %> <%= command.id %> fixtures/jobs/private-mlp.yaml --account 1 --wait',
    },
    {
      description: "Pin the latest thresholds account 0x90F7…b906 profiled and posted for this job's model: tolerance-mode verifiers judge the job by those and no others (repeat the flag to trust several posters)",
      command: '<%= config.bin %> <%= command.id %> fixtures/jobs/smoke-mlp.yaml --account 1 --thresholds-from 0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    },
    {description: 'Script it: one JSON object on stdout', command: '<%= config.bin %> <%= command.id %> job.yaml --wait --json | jq .testAccuracy'},
  ]
  static override args = {
    job: Args.string({description: 'Path to the job spec (YAML).', required: true}),
  }
  static override flags = {
    ...connectionFlags,
    wait: Flags.boolean({description: 'Follow every task until it is settled or expired, then evaluate the model.'}),
    'dry-run': Flags.boolean({description: 'Validate the spec and print what would be escrowed (at the default work table and verifier fee), without a chain.'}),
    count: Flags.integer({description: 'Submit this many copies of the job, each with its own escrow.', min: 1, max: 100, default: 1}),
    segments: Flags.integer({description: "Override the spec's verification.segments: how many segments a verifier replays.", min: 1, max: 64}),
    'task-ids': Flags.string({
      description: "Follow these tasks, already posted for this job by this account (ids separated by commas, one per task of every copy), instead of posting it again: a `submit --wait` that was stopped picks up where it left off.",
      dependsOn: ['wait'],
    }),
    keys: Flags.string({
      description: 'A private job (docs/privacy.md): the folder with your secret (created on first use) and the key files written per task (task-<id>.json, for `models get --key`).',
      default: '.gensyn/keys',
    }),
    'thresholds-from': Flags.string({
      description:
        "Trust this poster's profiles (an address; repeat for several, preferred in the order given): before the spec is hashed, pin in verification.profiles the latest profile it posted for the job's model per runtime pair. Tolerance-mode verifiers judge the job only by pinned profiles (docs/verification.md, \"Thresholds are pinned by the job\").",
      multiple: true,
      exclusive: ['dry-run'],
    }),
    backend: backendFlag,
  }

  async run(): Promise<SubmitJobResult> {
    const {args, flags} = await this.parse(Submit)
    const multi = createMultiProgress({enabled: flags.wait && !flags.json})
    const bars = new Map<string, Progress>()
    const result = await submitJob({
      jobPath: args.job,
      dryRun: flags['dry-run'],
      wait: flags.wait,
      count: flags.count,
      taskIds: flags['task-ids'] === undefined ? undefined : parseTaskIds(flags['task-ids']),
      segments: flags.segments,
      thresholdsFrom: parseAddresses('--thresholds-from', flags['thresholds-from'] ?? []),
      keysDir: flags.keys,
      backend: flags.backend as BackendChoice,
      connectOptions: connectOptionsFrom(flags, true),
      onPrivateData: (privacy) =>
        this.logAbove(multi, `private job: mapped locally with ${privacy.mapping}, published the mapped data set ${privacy.data} (${(privacy.bytes / 1e6).toFixed(1)} MB); raw samples and key stay here`),
      onSubmitted: (task) => {
        const parent = task.parentId === '0' ? '' : `, after task ${task.parentId}`
        this.logAbove(multi, `task ${task.taskId} submitted (${describeRange(task)}${parent}: ${task.workUnits} work units, escrow ${formatEther(BigInt(task.escrow))} ETH)`)
        if (flags.wait) bars.set(task.taskId!, multi.add(`task ${task.taskId!.padStart(3)}${barSuffix(task)}`, 5))
      },
      onStatus: (taskId, phase, status) => bars.get(taskId)?.update(phase, status),
      onSettle: (report) => {
        if (report.outcome.type !== 'settled') this.logAbove(multi, `task ${report.taskId}: settle: ${describeSettle(report.outcome)}`)
      },
      onExpired: (taskId, from) =>
        this.logAbove(multi, from === 'Claimed' ? `task ${taskId}: its solver missed the training deadline: back in the pool` : `task ${taskId}: expired from ${from}, escrow refunded`),
    })
    multi.stop()
    if (result.privacy?.keyFiles?.length) this.log(`key files: ${result.privacy.keyFiles.join(', ')} (models get <id> --key <file> gives a model that takes raw inputs)`)
    if (result.dryRun) {
      this.log(`valid: ${args.job} (spec ${result.specHash})`)
      this.log(
        `${result.tasks.length} task${result.tasks.length === 1 ? '' : 's'}, ${result.workUnits} work units, escrow ${formatEther(BigInt(result.escrow))} ETH at max price ${formatEther(BigInt(result.maxPrice))} ETH per work unit (default work table and verifier fee)`,
      )
    } else if (flags.wait) {
      this.log(renderLedger(result.tasks))
      const raw = result.rawTestAccuracy === undefined ? '' : `; with its mapping on raw test data ${result.rawTestAccuracy.toFixed(4)}`
      const model = result.testAccuracy === undefined ? '' : `, test accuracy ${result.testAccuracy.toFixed(4)} (on ${result.evaluatedOn}, task ${result.taskId}${raw})`
      this.log(`paid ${formatEther(BigInt(result.paid ?? '0'))} ETH, refunded ${formatEther(BigInt(result.refunded ?? '0'))} ETH of ${formatEther(BigInt(result.escrow))} ETH escrowed${model}`)
      const rounds = result.rounds?.length ? `${result.rounds.length} rounds of ${result.rounds[0]!.taskIds.length} parallel shards, ` : ''
      if (result.wallSeconds !== undefined) this.log(`${rounds}${result.wallSeconds.toFixed(1)} s from submission to the delivered model`)
    }
    return result
  }

  /** A line above the progress bars while they are drawn, else a plain line on stdout. */
  private logAbove(multi: MultiProgress, line: string): void {
    multi.log(line, (text) => this.log(text))
  }
}

function describeRange(task: SubmittedTask): string {
  if (task.shard !== undefined) return `steps ${task.steps.start}-${task.steps.end} on shard ${task.shard}, round ${task.index + 1} of ${task.tasks} of a parallel split`
  return task.tasks > 1 ? `steps ${task.steps.start}-${task.steps.end} of a ${task.tasks}-task split job` : `${task.steps.end} steps`
}

/** A progress bar's place in a split job: (task i/N), or a parallel split's (round r/R, shard k). */
function barSuffix(task: SubmittedTask): string {
  if (task.shard !== undefined) return ` (round ${task.index + 1}/${task.tasks}, shard ${task.shard})`
  return task.tasks > 1 ? ` (${task.index + 1}/${task.tasks})` : ''
}

function renderLedger(tasks: readonly SubmittedTask[]): string {
  const eth = (wei: string | undefined) => (wei === undefined ? '-' : formatEther(BigInt(wei)))
  return renderTable(
    ['TASK', 'STATUS', 'VERDICT', 'STEPS', 'PRICE (gwei/WU)', 'ESCROW (ETH)', 'SOLVER', 'VERIFIER', 'TAX', 'REFUNDED'],
    tasks.map((task) => [
      task.taskId ?? '-',
      task.status ?? '-',
      task.verdict ?? '-',
      task.totalSteps === undefined ? '-' : `${task.totalSteps}/${task.steps.end - task.steps.start}`,
      task.price === undefined ? '-' : formatUnits(BigInt(task.price), 9),
      eth(task.escrow),
      eth(task.solverPaid),
      eth(task.verifierPaid),
      eth(task.tax),
      eth(task.refunded),
    ]),
  )
}
