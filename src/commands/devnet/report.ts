import path from 'node:path'

import {Flags} from '@oclif/core'

import {produceReport} from '../../sim/report/index.js'
import {BaseCommand} from '../../ui/baseCommand.js'

export type DevnetReportResult = {source: 'chain' | 'file'; ok: boolean; failures: string[]; files: {json: string; markdown: string; charts: string[]}}

export default class DevnetReport extends BaseCommand {
  static override summary = "Write a devnet's report: report.md, report.json and SVG charts."
  static override description =
    'Against a running devnet (<state-dir>/devnet.json and a chain that answers) the report is read from the chain now: tasks, money, disputes, slashes, balances over time, each task\'s phases, the detection matrix, gas per phase and the price. Without one, the last run\'s <state-dir>/report.json is rendered again. Writes report.json, report.md and charts/ (balances.svg, timeline.svg, detection.svg, gas.svg, price.svg, rendered by vega-lite with no browser) to --out. A running devnet\'s scenario is not on disk, so a live report holds the run only to the protocol\'s own checks (money conserved, no honest actor slashed). See docs/report.md.'
  static override examples = [
    {description: 'Render the last run again (after `gensyn devnet up --until-settled`)', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'A report of a devnet still running, written elsewhere', command: '<%= config.bin %> <%= command.id %> --state-dir .gensyn --out ./run-report'},
    {description: 'Where the files went, for a script', command: '<%= config.bin %> <%= command.id %> --json'},
  ]
  static override flags = {
    'state-dir': Flags.string({description: 'Folder of the devnet (devnet.json) or of its last run (report.json).', default: '.gensyn', env: 'GENSYN_STATE_DIR'}),
    out: Flags.string({description: 'Folder to write report.md, report.json and charts/ to (default: the state dir).'}),
  }

  async run(): Promise<DevnetReportResult> {
    const {flags} = await this.parse(DevnetReport)
    const {source, report, files} = await produceReport({stateDir: flags['state-dir'], out: flags.out})
    const shown = (file: string) => path.relative(process.cwd(), file) || file
    this.log(`${source === 'chain' ? 'read from the running devnet' : `rendered again from ${shown(path.join(flags['state-dir'], 'report.json'))}`}: ${report.ok ? 'every check held' : `${report.failures.length} failed`}`)
    this.log(`report: ${shown(files.markdown)}`)
    this.log(`data:   ${shown(files.json)}`)
    this.log(`charts: ${files.charts.map(shown).join(', ')}`)
    return {source, ok: report.ok, failures: report.failures, files}
  }
}
