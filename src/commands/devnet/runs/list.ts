import {Flags} from '@oclif/core'

import {listRuns, type RunSummary} from '../../../sim/runs/listRuns.js'
import {BaseCommand} from '../../../ui/baseCommand.js'
import {renderTable} from '../../../ui/renderTable.js'

export default class DevnetRunsList extends BaseCommand {
  static override summary = 'List the devnet runs kept in the state dir, newest first.'
  static override description =
    'Every `gensyn devnet up` keeps its report, charts, logs and the exact scenario it ran (run.json) in a folder of its own, <state-dir>/runs/<UTC start>-<scenario>/. This lists them: the run id (the folder name, which `gensyn devnet report RUN` takes, as do unique prefixes of it and `latest`), when it started, the scenario, the result (ok, FAILED or partial, with the first reason), tasks settled of all, the wall time and whether money was conserved. See docs/report.md.'
  static override examples = [
    {description: 'The runs in .gensyn', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'The failed runs, for a script', command: '<%= config.bin %> <%= command.id %> --state-dir /tmp/sweep --json | jq \'.[] | select(.result != "ok") | .id\''},
  ]
  static override flags = {
    'state-dir': Flags.string({description: 'Folder of the devnet whose runs/ to list.', default: '.gensyn', env: 'GENSYN_STATE_DIR'}),
  }

  async run(): Promise<RunSummary[]> {
    const {flags} = await this.parse(DevnetRunsList)
    const runs = await listRuns(flags['state-dir'])
    if (runs.length === 0) {
      this.log(`no runs in ${flags['state-dir']}/runs (start one with \`gensyn devnet up\`)`)
      return runs
    }
    const header = ['ID', 'STARTED', 'SCENARIO', 'RESULT', 'TASKS SETTLED', 'WALL', 'MONEY CONSERVED']
    this.log(renderTable(header, runs.map(runRow)))
    return runs
  }
}

function runRow(run: RunSummary): string[] {
  const reason = run.result === 'ok' || run.reason === null ? '' : `: ${run.reason.length > 60 ? `${run.reason.slice(0, 59)}…` : run.reason}`
  return [
    run.id,
    run.startedAt?.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') ?? '-',
    run.scenario,
    `${run.result}${reason}`,
    run.tasks ? `${run.tasks.settled}/${run.tasks.total}` : '-',
    run.wallSeconds === null ? '-' : `${run.wallSeconds} s`,
    run.conservationOk === null ? '-' : run.conservationOk ? 'yes' : 'NO',
  ]
}
