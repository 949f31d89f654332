import {mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {Flags} from '@oclif/core'

import {economicsDefaults, type EconomicsParams, type EconomicsSweep, jobEconomics, type JobEconomics, parseSweep, setEconomicsParam, sweepEconomics} from '../economics/index.js'
import {loadJobSpec} from '../ml/spec/loadJobSpec.js'
import {economicsChart} from '../sim/report/charts/economicsChart.js'
import {renderSvg} from '../sim/report/charts/renderSvg.js'
import {BaseCommand} from '../ui/baseCommand.js'
import {economicsView} from '../ui/economicsView.js'

export type EconomicsOutput = JobEconomics & {sweep?: EconomicsSweep & {chart: string}}

export default class Economics extends BaseCommand {
  static override summary = 'The expected value of cheating on a job: P(caught), expected profit and break-even stake per adversary strategy.'
  static override description =
    "For every strategy of the adversary library (the cheating solver strategies, a lazy verifier and a colluding verifier-solver pair) computes the chance of being caught on one task of the job, from its sampling plan (segments replayed, verifiers, whistleblowers that re-check under their payout rule, forced errors), the compute it saves against honest play, what it loses when caught, the expected profit against honest play and the stake at which that profit is zero. The measured detection rates of docs/benchmarks.md print beside the plan's. Defaults are the shipped parameters; --set changes one, --sweep draws expected profit against one as an SVG. docs/economics.md explains the model."
  static override examples = [
    {description: 'The table at the shipped defaults', command: '<%= config.bin %> <%= command.id %> --job fixtures/jobs/sums-transformer.yaml'},
    {description: 'With a smaller verifier stake and fewer forced errors', command: '<%= config.bin %> <%= command.id %> --job fixtures/jobs/smoke-mlp.yaml --set protocol.verifierStake=0.1 --set protocol.forcedErrorBps=100'},
    {description: 'Expected profit against the solver stake, as an SVG', command: '<%= config.bin %> <%= command.id %> --job fixtures/jobs/mnist-mlp.yaml --set whistleblowers.count=0 --sweep protocol.solverStake=0:0.1:21 --out stake.svg'},
  ]
  static override flags = {
    job: Flags.string({description: 'The job spec (YAML).', required: true}),
    set: Flags.string({description: 'Change a parameter: path=value (repeatable), e.g. protocol.forcedErrorBps=200. docs/economics.md lists them.', multiple: true, default: []}),
    sweep: Flags.string({description: 'Sweep one parameter: path=from:to:count, and write the expected-profit curves as SVG (--out).'}),
    out: Flags.string({description: 'With --sweep: the SVG file to write (default economics-<parameter>.svg).'}),
  }

  async run(): Promise<EconomicsOutput> {
    const {flags} = await this.parse(Economics)
    const params = flags.set.reduce<EconomicsParams>((current, assignment) => setEconomicsParam(current, assignment), economicsDefaults())
    const sweepSpec = flags.sweep === undefined ? undefined : parseSweep(flags.sweep)
    const spec = await loadJobSpec(flags.job)
    const report: EconomicsOutput = jobEconomics(spec, params)
    this.log(economicsView(report, flags.job))
    if (sweepSpec) {
      const sweep = sweepEconomics(spec, params, sweepSpec)
      const chart = path.resolve(flags.out ?? `economics-${sweepSpec.path.replaceAll('.', '-')}.svg`)
      await mkdir(path.dirname(chart), {recursive: true})
      await writeFile(chart, await renderSvg(economicsChart(sweep, spec.name)))
      report.sweep = {...sweep, chart}
      this.log(`\nwrote ${chart}: expected profit against ${sweepSpec.path}, ${sweep.points.length} points`)
    }
    return report
  }
}
