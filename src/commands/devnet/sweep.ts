import path from 'node:path'

import {Flags} from '@oclif/core'

import {backendChoices, type BackendChoice} from '../../ml/backend/runtimeId.js'
import {maxSeed} from '../../random/randomSeed.js'
import {scenarioForRun} from '../../sim/scenarioForRun.js'
import {parseGrid} from '../../sim/sweep/parseGrid.js'
import {runSweep, type SweepEvent, type SweepResult} from '../../sim/sweep/runSweep.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {canShowDashboard} from '../../ui/dashboard/canShowDashboard.js'
import {startSweepDashboard} from '../../ui/dashboard/startSweepDashboard.js'
import {createSweepStatus} from '../../ui/sweepStatus.js'
import {withInterrupt} from '../../ui/withInterrupt.js'

export default class DevnetSweep extends BaseCommand {
  static override summary = 'Run a scenario over a grid of parameter values, each cell its own devnet, and chart the figures against them.'
  static override description =
    'Each --set path=v1,v2 names a scenario field (a dotted path, e.g. protocol.taxBps, chain.challengeWindow, actors.solvers.0.claimDelayMs) and its values; the grid is their cartesian product, each cell run --repeat times. Every path and value is checked against the scenario schema before any devnet starts. Each cell runs until settled on its own devnet (its own state dir under the sweep folder, a free anvil port) into its own run folder <state-dir>/runs/<sweep>-<cell>/, --parallel at a time. Repeat r of every cell runs with a seed derived from the sweep seed (--seed, else a fresh one, recorded), so the cells differ only by the swept values. The summary goes to <state-dir>/sweeps/<time>-<scenario>/: sweep.md (a table of the mean and min-max over repeats of detection rate, cheater and honest profit, whistleblower participation, price, gas and time per task), sweep.json and charts/*.svg (each figure against the swept parameters). An interrupted sweep resumes: run the same command again (or --resume) and only cells without a complete run are run. On a terminal the live dashboard shows the cells (done, running, queued, time left) above the devnet of a running cell and its training curve; n shows the next running cell, q stops like Ctrl-C. See docs/sweeps.md.'
  static override examples = [
    {description: 'Does a higher jackpot tax bring more whistleblowers? Two runs per value, two devnets at a time', command: '<%= config.bin %> <%= command.id %> --scenario whistleblowers --set protocol.taxBps=100,500,1000 --repeat 2 --parallel 2'},
    {description: 'A two-parameter grid of the smoke scenario, replayable by its seed', command: '<%= config.bin %> <%= command.id %> --scenario smoke --set protocol.taxBps=100,500 --set chain.challengeWindow=2,4 --seed 7'},
    {description: 'Finish the last sweep after Ctrl-C (cells with a complete run are skipped)', command: '<%= config.bin %> <%= command.id %> --resume'},
    {description: 'The summary as one JSON object, for a script', command: '<%= config.bin %> <%= command.id %> --scenario smoke --set protocol.samples=1,2 --json'},
  ]
  static override flags = {
    scenario: Flags.string({description: 'Scenario YAML or shipped name (default: the embedded one).', exclusive: ['resume']}),
    set: Flags.string({description: 'A scenario field and the values to sweep it over: path=v1,v2,... (repeatable: the grid is the product).', multiple: true, exclusive: ['resume'], helpValue: 'PATH=V1,V2'}),
    repeat: Flags.integer({description: 'Runs per combination of values (the spread over them is charted).', min: 1, max: 100, default: 1}),
    parallel: Flags.integer({description: 'Cells run at once, each its own devnet.', min: 1, max: 16, default: 1}),
    seed: Flags.integer({description: 'The sweep seed the cells\' seeds derive from (default: a fresh one, recorded in sweep.json).', min: 0, max: maxSeed, exclusive: ['resume']}),
    resume: Flags.boolean({description: 'Finish the newest sweep in --state-dir: run only its cells without a complete run, then write its summary again.'}),
    'state-dir': Flags.string({description: 'Folder for the sweeps/ and runs/ folders.', default: '.gensyn', env: 'GENSYN_STATE_DIR'}),
    backend: Flags.string({description: "Backend of every actor without its own (overrides the scenario's).", options: backendChoices as BackendChoice[]}),
    timeout: Flags.integer({description: "Give up on a cell after this many seconds (default: the scenario's timeoutSeconds).", min: 1}),
  }

  async run(): Promise<SweepResult> {
    const {flags} = await this.parse(DevnetSweep)
    const stateDir = flags['state-dir']
    // Bad input (a scenario, a --set path or value) fails here, before any devnet starts.
    let request: Parameters<typeof runSweep>[0]['request'] = 'resume'
    if (!flags.resume) {
      const {scenario} = await scenarioForRun({scenario: flags.scenario})
      request = {scenario, axes: parseGrid(flags.set ?? [], scenario), repeat: flags.repeat, seed: flags.seed}
    }
    // On a terminal the live dashboard shows the cells and the devnet of one running cell (docs/dashboard.md);
    // elsewhere a line per cell. q stops the sweep like Ctrl-C; a rerun finishes it.
    const scenarioName = request === 'resume' ? 'resumed sweep' : request.scenario.name
    const dashboard = canShowDashboard({json: Boolean(flags.json)}) ? startSweepDashboard({scenario: scenarioName, stateDir: path.resolve(stateDir), parallel: flags.parallel}) : undefined
    const status = flags.json || dashboard ? undefined : createSweepStatus({log: (line) => this.log(line), live: process.stderr.isTTY ? process.stderr : undefined})
    const result = await withInterrupt((signal) =>
      runSweep({
        stateDir,
        request,
        parallel: flags.parallel,
        backend: flags.backend as BackendChoice | undefined,
        timeoutSeconds: flags.timeout,
        signal: dashboard ? AbortSignal.any([signal, dashboard.quit]) : signal,
        onEvent: (event: SweepEvent) => (dashboard ? dashboard.onSweepEvent(event) : status?.onEvent(event)),
        onCellEvent: dashboard?.onCellEvent,
        onCellStarted: dashboard?.onCellStarted,
      }),
    ).finally(() => {
      status?.stop()
      dashboard?.stop()
    })
    const unfinished = result.cells.filter((cell) => cell.metrics === null)
    if (!flags.json) {
      this.log(`sweep ${result.id}: ${result.cells.length - unfinished.length} of ${result.cells.length} runs complete${result.skipped.length > 0 ? ` (${result.skipped.length} from an earlier invocation)` : ''}`)
      this.log(`summary: ${shown(result.files.markdown)} (data: ${shown(result.files.json)}, charts: ${shown(path.dirname(result.files.charts[0] ?? result.files.markdown))})`)
      if (unfinished.length > 0) this.log(`unfinished: ${unfinished.map((cell) => `${cell.cell.id} (${cell.result}${cell.reason ? `: ${cell.reason}` : ''})`).join(', ')}; run the same command again (or --resume) to finish them`)
      this.log(`again with the same seeds: ${result.command}`)
    }
    if (result.interrupted || unfinished.length > 0) {
      if (flags.json) this.logJson(result)
      this.exit(result.interrupted ? 130 : 1)
    }
    return result
  }
}

/** A path under the working directory as a relative one, any other as it is. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file)
  return relative === '' || relative.startsWith('..') ? file : relative
}
