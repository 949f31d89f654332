import {writeFile} from 'node:fs/promises'

import {Flags} from '@oclif/core'

import {InvalidInputError} from '../errors/base.js'
import {backendNames, type BackendName} from '../ml/backend/index.js'
import {loadJobSpec} from '../ml/spec/index.js'
import {profileJob, type ProfileResult} from '../pol/index.js'
import {BaseCommand} from '../ui/baseCommand.js'
import {createProgress, type Progress} from '../ui/progress.js'
import {renderTable} from '../ui/taskView.js'

export default class Profile extends BaseCommand {
  static override summary = 'Measure how far honest replays drift apart, and derive distance thresholds for tolerance mode.'
  static override description =
    'Trains a reference run of the job, then replays segments of it on every runtime given (and with other seeds when asked), measures the l1, l2, l∞ and cosine distances between honest replays of the same segment, and derives thresholds with the rule in docs/verification.md. `verify --mode tolerance --thresholds FILE` uses them.'
  static override examples = [
    {description: 'Profile the MLP job across wasm and cpu, saving the thresholds', command: '<%= config.bin %> <%= command.id %> --job fixtures/jobs/mnist-mlp.yaml --out thresholds.json'},
    {description: 'A quicker profile: 3 segments, two seeds, JSON for a script', command: '<%= config.bin %> <%= command.id %> --job fixtures/jobs/smoke-mlp.yaml --segments 3 --seeds 2 --json'},
  ]
  static override flags = {
    job: Flags.string({description: 'The job spec (YAML) to profile.', required: true}),
    runtimes: Flags.string({description: 'Comma-separated backends to compare; the first runs the reference.', default: 'wasm,cpu'}),
    segments: Flags.integer({description: 'Segments replayed per seed, spread over the job (default: all).', min: 1}),
    seeds: Flags.integer({description: 'Reference runs with training seeds seed, seed + 1, …', min: 1, default: 1}),
    out: Flags.string({description: 'Write the result (thresholds, rule, samples) as JSON to this file.'}),
  }

  async run(): Promise<ProfileResult> {
    const {flags} = await this.parse(Profile)
    const runtimes = flags.runtimes.split(',').map((name) => name.trim())
    const unknown = runtimes.find((name) => !(backendNames as readonly string[]).includes(name))
    if (unknown !== undefined) throw new InvalidInputError(`--runtimes: expected names from ${backendNames.join(', ')}, got "${unknown}"`)
    const spec = await loadJobSpec(flags.job)
    let bar: Progress | undefined
    const result = await profileJob({
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
    if (flags.out) await writeFile(flags.out, `${JSON.stringify(result, null, 2)}\n`)
    this.log(`runtime class: ${result.runtimeClass}${result.unavailable.length ? ` (unavailable: ${result.unavailable.map((entry) => entry.backend).join(', ')})` : ''}`)
    this.log(`${result.samples.length} honest replays compared`)
    const metrics = ['l1', 'l2', 'linf', 'cosine'] as const
    this.log(
      renderTable(
        ['METRIC', 'LARGEST OBSERVED', 'THRESHOLD'],
        metrics.map((metric) => [metric, result.observed.whole[metric].toExponential(3), (result.thresholds[metric] ?? Number.NaN).toExponential(3)]),
      ),
    )
    this.log(`rule: ${result.rule}`)
    if (flags.out) this.log(`wrote ${flags.out}`)
    return result
  }
}
