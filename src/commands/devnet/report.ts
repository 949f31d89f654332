import path from 'node:path'

import {Args, Flags} from '@oclif/core'

import {InvalidInputError} from '../../errors/base.js'
import {produceReport, writeReportFiles} from '../../sim/report/index.js'
import type {ComparedFigure, Comparison} from '../../sim/runs/compareRuns.js'
import {loadRun} from '../../sim/runs/loadRun.js'
import {produceComparison} from '../../sim/runs/produceComparison.js'
import {figureLabel} from '../../sim/runs/figureLabel.js'
import type {ComparisonFiles} from '../../sim/runs/writeComparison.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {renderTable} from '../../ui/renderTable.js'

export type DevnetReportResult = {
  source: 'chain' | 'file' | 'run'
  /** The run folder's id, when a RUN was named. */
  run?: string
  ok: boolean
  failures: string[]
  files: {json: string; markdown: string; html: string; charts: string[]}
}

export type DevnetCompareResult = Comparison & {files: ComparisonFiles}

export default class DevnetReport extends BaseCommand {
  static override summary = "Write a devnet's report (report.md, report.html, report.json, SVG charts), of the last run, any kept run, or two runs compared."
  static override description =
    'Without RUN: against a running devnet (<state-dir>/devnet.json and a chain that answers) the report is read from the chain now: tasks, money, disputes, slashes, balances over time, each task\'s phases, the detection matrix, gas per phase, the price and the training curve of every proof. Without one, the last run\'s <state-dir>/report.json is rendered again. Writes report.json, report.md and charts/ (balances.svg, timeline.svg, training.svg, detection.svg, gas.svg, price.svg, rendered by vega-lite with no browser), and report.html (the same with interactive charts, vega inlined: one file that opens with no network) to --out. A running devnet\'s scenario is not on disk, so a live report holds the run only to the protocol\'s own checks (money conserved, no honest actor slashed).\n\nWith RUN (a run id from `gensyn devnet runs list`, a unique prefix of one, `latest`, or a path to a run folder): that run\'s report is rendered again, into its own folder unless --out says otherwise.\n\nWith --compare RUN RUN: the two runs\' headline figures side by side with the difference B - A (tasks, verdicts, slashes, disputes, jackpot, gas per phase, time per task, price, detection per strategy, conservation), printed and written as compare.md and compare.json, with charts of both runs overlaid (price over time, gas per phase, detection). See docs/report.md.'
  static override examples = [
    {description: 'Render the last run again (after `gensyn devnet up --until-settled`)', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'A report of a devnet still running, written elsewhere', command: '<%= config.bin %> <%= command.id %> --state-dir .gensyn --out ./run-report'},
    {description: 'The newest kept run, or one by a prefix of its id', command: '<%= config.bin %> <%= command.id %> latest\n<%= config.bin %> <%= command.id %> 2026-11-27T06-31'},
    {description: 'Two runs side by side, with overlaid charts', command: '<%= config.bin %> <%= command.id %> --compare 2026-11-27T06-31-06Z-smoke latest --out ./smoke-vs-latest'},
    {description: 'Where the files went, for a script', command: '<%= config.bin %> <%= command.id %> --json'},
  ]
  static override args = {
    run: Args.string({description: 'A kept run: its id (`gensyn devnet runs list`), a unique prefix, `latest`, or a path to its folder.'}),
    other: Args.string({description: 'With --compare: the second run (B), named the same ways.'}),
  }
  static override flags = {
    'state-dir': Flags.string({description: 'Folder of the devnet (devnet.json), of its last run (report.json) and of its kept runs (runs/).', default: '.gensyn', env: 'GENSYN_STATE_DIR'}),
    out: Flags.string({description: 'Folder to write to (default: the state dir; with RUN, the run\'s folder; with --compare, <state-dir>/compare/<A>-vs-<B>).'}),
    compare: Flags.boolean({description: 'Compare two runs, given as RUN RUN: side-by-side figures (compare.md, compare.json) and overlaid charts.'}),
  }

  async run(): Promise<DevnetReportResult | DevnetCompareResult> {
    const {args, flags} = await this.parse(DevnetReport)
    const stateDir = flags['state-dir']
    if (flags.compare) {
      if (args.run === undefined || args.other === undefined) throw new InvalidInputError('--compare: expected two runs, e.g. `gensyn devnet report --compare RUN RUN` (ids from `gensyn devnet runs list`, prefixes, latest or paths)')
      return this.compare(stateDir, [args.run, args.other], flags.out)
    }
    if (args.other !== undefined) throw new InvalidInputError(`RUN: expected one run, got two (${args.run} ${args.other}); to compare them, add --compare`)
    if (args.run !== undefined) return this.renderRun(stateDir, args.run, flags.out)
    const {source, report, files} = await produceReport({stateDir, out: flags.out})
    this.log(`${source === 'chain' ? 'read from the running devnet' : `rendered again from ${shown(path.join(stateDir, 'report.json'))}`}: ${report.ok ? 'every check held' : `${report.failures.length} failed`}`)
    this.logFiles(files)
    return {source, ok: report.ok, failures: report.failures, files}
  }

  private async renderRun(stateDir: string, name: string, out: string | undefined): Promise<DevnetReportResult> {
    const run = await loadRun({stateDir, run: name})
    const {report} = run
    const files = await writeReportFiles(out ?? run.dir, report)
    const result = report.partial ? `partial (${report.partial.reason})` : report.ok ? 'every check held' : `${report.failures.length} failed: ${report.failures[0] ?? ''}`
    this.log(`run ${run.id} (${report.scenario}): ${result}`)
    this.logFiles(files)
    return {source: 'run', run: run.id, ok: report.ok, failures: report.failures, files}
  }

  private async compare(stateDir: string, runs: [string, string], out: string | undefined): Promise<DevnetCompareResult> {
    const {comparison, files} = await produceComparison({stateDir, runs, out})
    this.log(`A: ${comparison.a.id}`)
    this.log(`B: ${comparison.b.id}`)
    this.log('')
    this.log(renderTable(['FIGURE', 'A', 'B', 'B - A'], comparison.figures.map(figureRow)))
    this.log('')
    this.log(`compare: ${shown(files.markdown)}`)
    this.log(`data:    ${shown(files.json)}`)
    this.log(`charts:  ${files.charts.map(shown).join(', ')}`)
    return {...comparison, files}
  }

  private logFiles(files: DevnetReportResult['files']): void {
    this.log(`report: ${shown(files.markdown)}`)
    this.log(`html:   ${shown(files.html)}`)
    this.log(`data:   ${shown(files.json)}`)
    this.log(`charts: ${files.charts.map(shown).join(', ')}`)
  }
}

function figureRow(figure: ComparedFigure): string[] {
  return [figureLabel(figure), figure.text.a, figure.text.b, figure.text.difference]
}

function shown(file: string): string {
  return path.relative(process.cwd(), file) || file
}
