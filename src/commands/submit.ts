import {Args, Flags} from '@oclif/core'
import {formatEther} from 'viem'

import {submitJob, type SubmitJobResult} from '../actors/submitJob.js'
import {BaseCommand} from '../ui/baseCommand.js'
import {connectOptionsFrom} from '../ui/connectOptions.js'
import {backendFlag, connectionFlags} from '../ui/flags.js'
import {createProgress, type Progress} from '../ui/progress.js'
import {describeSettle} from '../ui/taskView.js'

export default class Submit extends BaseCommand {
  static override summary = 'Submit a training job: validate its spec, publish it and escrow the fee.'
  static override description =
    'Reads a job.yaml, validates it, stores the spec in the blob store and posts the task with its escrow. With --wait it follows the task through training, verification, the challenge and reveal windows and any dispute, reopening or re-verification, calls settle until it is done, and reports the delivered model\'s test accuracy.'
  static override examples = [
    {description: 'Check a job spec without touching a chain', command: '<%= config.bin %> <%= command.id %> fixtures/jobs/mnist-mlp.yaml --dry-run'},
    {description: 'Submit to the local devnet as account 1 and wait for the trained model', command: '<%= config.bin %> <%= command.id %> fixtures/jobs/mnist-mlp.yaml --account 1 --wait'},
    {description: 'Script it: one JSON object on stdout', command: '<%= config.bin %> <%= command.id %> job.yaml --wait --json | jq .testAccuracy'},
  ]
  static override args = {
    job: Args.string({description: 'Path to the job spec (YAML).', required: true}),
  }
  static override flags = {
    ...connectionFlags,
    wait: Flags.boolean({description: 'Follow the task until it is settled or expired, then evaluate the model.'}),
    'dry-run': Flags.boolean({description: 'Validate the spec and print what would be escrowed, without a chain.'}),
    backend: backendFlag,
  }

  async run(): Promise<SubmitJobResult> {
    const {args, flags} = await this.parse(Submit)
    let progress: Progress | undefined
    const result = await submitJob({
      jobPath: args.job,
      dryRun: flags['dry-run'],
      wait: flags.wait,
      backend: flags.backend as 'wasm' | 'cpu' | 'gpu',
      connectOptions: connectOptionsFrom(flags, true),
      onSubmitted: (submitted) => {
        this.log(`task ${submitted.taskId} submitted (spec ${submitted.specHash}, escrow ${formatEther(BigInt(submitted.escrow))} ETH)`)
        progress = createProgress({label: `task ${submitted.taskId}`, total: 5, enabled: flags.wait && !flags.json})
      },
      onStatus: (phase, status) => progress?.update(phase, status),
      onSettle: (report) => {
        if (report.outcome.type !== 'settled') this.log(`task ${report.taskId}: settle: ${describeSettle(report.outcome)}`)
      },
    })
    progress?.stop()
    if (result.dryRun) {
      this.log(`valid: ${args.job} (spec ${result.specHash})`)
      this.log(`escrow: ${formatEther(BigInt(result.escrow))} ETH (solver ${formatEther(BigInt(result.solverReward))}, verifier ${formatEther(BigInt(result.verifierReward))})`)
    } else if (result.status) {
      this.log(`task ${result.taskId}: ${result.status}, verdict ${result.verdict}${result.testAccuracy === undefined ? '' : `, test accuracy ${result.testAccuracy.toFixed(4)} (on ${result.evaluatedOn})`}`)
    }
    return result
  }
}
