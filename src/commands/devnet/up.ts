import path from 'node:path'

import {Flags} from '@oclif/core'

import {type DevnetReport} from '../../sim/buildReport.js'
import {type DetachedDevnet, detachDevnet} from '../../sim/detachDevnet.js'
import {DevnetStoppedError, runDevnet} from '../../sim/runDevnet.js'
import {lastRunState} from '../../sim/runRecord.js'
import {InvalidInputError} from '../../errors/base.js'
import {maxSeed} from '../../random/randomSeed.js'
import {withChaos, withSeed} from '../../sim/scenario.js'
import {scenarioForRun} from '../../sim/scenarioForRun.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {createDevnetLog, renderReport} from '../../ui/devnetLog.js'
import {canShowDashboard} from '../../ui/dashboard/canShowDashboard.js'
import {withInterrupt} from '../../ui/withInterrupt.js'
import {backendChoices, type BackendChoice} from '../../ml/backend/runtimeId.js'

export default class DevnetUp extends BaseCommand {
  static override summary = 'Start a local chain, deploy the contracts and spawn actors that play the protocol.'
  static override description =
    'Starts anvil, deploys RoleRegistry, ProtocolConfig, TaskMarket, ThresholdRegistry and PinpointGame, funds the accounts and writes <state-dir>/devnet.json so that every other command finds the devnet without flags. Each solver, verifier and whistleblower runs as its own `gensyn solve --loop` / `gensyn verify --loop` / `gensyn challenge --loop` process, honest or playing the adversary the scenario names (docs/adversaries.md), and each job of the scenario is submitted by a `gensyn submit --wait` process. Solvers list offers in the SolverBook and follow the posted price (docs/market.md); a scenario can make them leave (`leaveAfterSeconds`), kill one mid-task (`dropout`), and submit jobs over time (`at`, `count`). The report says who was slashed (training timeouts included), who was paid (fees, slash shares, the jackpot), every dispute with its rounds and gas, the escrow, payments and refund of each task (checked to the wei), every offer listed and withdrawn, and charts the market price over the run; it checks that money is conserved to the wei. The default scenario has 1 submitter, 2 solvers, 2 verifiers, 1 whistleblower and one MNIST MLP job. An actor process that dies is restarted (with backoff, from its state dir) while the run goes on; `--chaos N` kills actors at random to show it. Each run writes its report to <state-dir>/runs/<time>-<scenario>/ (and the latest to <state-dir>), also when it ends early: a partial report says why. Logs go to <state-dir>/logs.'
  static override examples = [
    {description: 'Run the default scenario until its job has settled, then print the report', command: '<%= config.bin %> <%= command.id %> --until-settled'},
    {description: 'The CI smoke test: exit code 0 only if every expectation held', command: '<%= config.bin %> <%= command.id %> --scenario fixtures/scenarios/smoke.yaml --until-settled --json'},
    {description: 'Keep a devnet up for manual play (Ctrl-C stops it and every actor)', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'A colluding solver and verifier caught by a whistleblower through the pinpoint dispute', command: '<%= config.bin %> <%= command.id %> --scenario fixtures/scenarios/colluding.yaml --until-settled'},
    {description: 'Cheap solvers leave, the price climbs until reserve solvers join; the report charts the price', command: '<%= config.bin %> <%= command.id %> --scenario fixtures/scenarios/supply-shock.yaml --until-settled'},
    {description: 'In the background, persisted: stop it with `devnet down`, resume its open tasks later', command: '<%= config.bin %> <%= command.id %> --detach --state run.state'},
    {description: 'Resume a stopped devnet from its state file and run it until its jobs settle', command: '<%= config.bin %> <%= command.id %> --state run.state --until-settled'},
    {description: 'Kill 8 actors at random moments; the devnet restarts them and the run must still settle with money conserved', command: '<%= config.bin %> <%= command.id %> --scenario smoke --chaos 8 --until-settled'},
    {description: 'Replay a run: the same seed gives the same keys, tasks, verdicts and payouts (the report names the seed of every run)', command: '<%= config.bin %> <%= command.id %> --scenario smoke --seed 42 --until-settled'},
    {description: 'Continue the last persisted run after the chain died or Ctrl-C', command: '<%= config.bin %> <%= command.id %> --resume --until-settled'},
  ]
  static override flags = {
    scenario: Flags.string({description: 'Scenario YAML (actors, jobs, chain parameters, expectations). Default: the embedded one.'}),
    'until-settled': Flags.boolean({description: "Exit once every job has settled; exit code 0 only if every expectation held (the scenario's untilSettled does the same; its durationSeconds ends a run after that long)."}),
    'state-dir': Flags.string({description: 'Folder for devnet.json, the blob store and logs.', default: '.gensyn', env: 'GENSYN_STATE_DIR'}),
    backend: Flags.string({description: "Backend of every actor without its own (overrides the scenario's backend): wasm, cpu, webgpu, gpu or auto.", options: backendChoices as BackendChoice[]}),
    port: Flags.integer({description: 'Port for anvil (default: a free one).', min: 1, max: 65_535}),
    timeout: Flags.integer({description: "Give up after this many seconds (default: the scenario's timeoutSeconds).", min: 1}),
    detach: Flags.boolean({description: 'Run the devnet in the background (output in <state-dir>/logs/devnet.log): return once its actors are spawned. `gensyn devnet status` shows it, `gensyn devnet down` stops it.'}),
    state: Flags.string({
      description: 'Persist the run: the chain in FILE (anvil state dump, every 2 s and at stop), the blob store, solver state and the jobs in FILE.d/. An existing FILE resumes: no redeploy, same scenario, open tasks continue (docs/lifecycle.md).',
      helpValue: 'FILE',
    }),
    resume: Flags.boolean({
      description: "Resume the last run in --state-dir from its chain dump: the --state FILE it was started with (after a Ctrl-C, a crash or the chain dying).",
      exclusive: ['state', 'scenario'],
    }),
    chaos: Flags.integer({
      description: "Kill actors (SIGKILL) at random moments while they work, this many times; the devnet restarts them and every task must still end (overrides the scenario's chaos.kills; docs/reliability.md).",
      min: 0,
      max: 1000,
    }),
    seed: Flags.integer({
      description: "Derive every actor's keys, secrets and random choices from this seed (overrides the scenario's seed): two runs of one scenario with one seed make the same tasks, verdicts and payouts. Without it a run picks a seed and records it in run.json and the report.",
      min: 0,
      max: maxSeed,
      exclusive: ['resume'],
    }),
    'chaos-seed': Flags.integer({description: 'Seed of the chaos: the same seed replays the same gaps and victims.', min: 0, dependsOn: ['chaos']}),
  }

  async run(): Promise<DetachedDevnet | DevnetReport | undefined> {
    const {flags} = await this.parse(DevnetUp)
    // Bad input (a scenario, a damaged --state) fails here, in the foreground, before anything is started.
    const state = flags.resume ? await lastRunState(flags['state-dir']) : flags.state
    const run = await scenarioForRun({scenario: flags.scenario, state})
    const {saved} = run
    // A resumed run keeps the seed it was started with: its accounts derive from it.
    if (saved && flags.seed !== undefined && flags.seed !== saved.scenario.seed) throw new InvalidInputError(`--seed: ${state} was started with ${saved.scenario.seed === undefined ? 'no seed' : `seed ${saved.scenario.seed}`}: leave --seed out`)
    const scenario = withChaos(saved ? run.scenario : withSeed(run.scenario, flags.seed), flags.chaos, flags['chaos-seed'])
    if (state && scenario.crowd) throw new InvalidInputError('--state: a crowd scenario cannot be kept and resumed (its actors keep nothing on disk): run it without --state or --resume')
    if (flags.detach) {
      const args = this.argv.filter((arg) => arg !== '--detach' && arg !== '--json')
      const detached = await detachDevnet({args, stateDir: flags['state-dir']})
      this.log(`devnet running in the background: pid ${detached.pid}, rpc ${detached.rpcUrl}, ${detached.actors} actors, state dir ${detached.stateDir}${detached.stateFile ? `, state ${detached.stateFile}` : ''}`)
      this.log(`log: ${detached.log}; \`gensyn devnet status\` to look, \`gensyn devnet down\` to stop${flags['state-dir'] === '.gensyn' ? '' : ` (with --state-dir ${flags['state-dir']})`}`)
      return detached
    }
    const narrate = createDevnetLog((line) => this.log(line))
    // On a terminal the live dashboard replaces the line log (docs/dashboard.md); q there stops the run like Ctrl-C.
    // Imported only then: ink and React's reconciler are 1.4 MB of code that a run under --json, in CI or detached
    // would parse for nothing (here in the command, not the library, where the suite's in-process tests would load a
    // second copy of the dashboard's modules through the dynamic import).
    const dashboard = canShowDashboard({json: Boolean(flags.json)})
      ? (await import('../../ui/dashboard/startDashboard.js')).startDashboard({scenario: scenario.name, stateDir: path.resolve(flags['state-dir'])})
      : undefined
    const {report, interrupted, runDir} = await withInterrupt((signal) =>
      runDevnet({
        scenario,
        stateDir: flags['state-dir'],
        backend: (flags.backend as BackendChoice | undefined) ?? saved?.backend,
        port: flags.port,
        state,
        untilSettled: flags['until-settled'],
        timeoutSeconds: flags.timeout,
        signal: dashboard ? AbortSignal.any([signal, dashboard.quit]) : signal,
        onEvent: flags.json ? undefined : (dashboard?.onEvent ?? narrate),
        onStarted: dashboard?.onStarted,
      }),
    )
      .finally(() => dashboard?.stop())
      .catch((error: unknown) => {
        // A run cut short still shows its partial report (also when no file could hold it), then fails.
        if (error instanceof DevnetStoppedError) {
          if (flags.json) this.logJson(error.report)
          else this.log(renderReport(error.report))
        }
        throw error
      })
    this.log(renderReport(report))
    this.log(`report: ${path.join(runDir, 'report.md')} (also ${path.join(flags['state-dir'], 'report.md')}; report.html and charts beside it, data in report.json), logs: ${path.join(runDir, 'logs')} (also appended to ${path.join(flags['state-dir'], 'logs')})`)
    if (state) this.log(`state: ${state} (resume with \`gensyn devnet up --resume\` or \`--state ${state}\`)`)
    // A run with an end (settled, or the scenario's duration) is judged by its expectations; an open-ended one is not.
    const judged = flags['until-settled'] || scenario.untilSettled || scenario.durationSeconds !== undefined
    const failed = judged && !report.ok
    if (flags.json) this.logJson(report)
    if (interrupted && judged) this.exit(130)
    if (failed) this.exit(1)
    return undefined
  }
}
