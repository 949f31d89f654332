import path from 'node:path'

import {Flags} from '@oclif/core'

import {type DevnetReport} from '../../sim/buildReport.js'
import {runDevnet} from '../../sim/runDevnet.js'
import {loadScenario, resolveDefaultScenario} from '../../sim/scenario.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {createDevnetLog, renderReport} from '../../ui/devnetLog.js'
import {withInterrupt} from '../../ui/withInterrupt.js'

export default class DevnetUp extends BaseCommand {
  static override summary = 'Start a local chain, deploy the contracts and spawn actors that play the protocol.'
  static override description =
    'Starts anvil, deploys RoleRegistry, ProtocolConfig, TaskMarket, ThresholdRegistry and PinpointGame, funds the accounts and writes <state-dir>/devnet.json so that every other command finds the devnet without flags. Each solver, verifier and whistleblower runs as its own `gensyn solve --loop` / `gensyn verify --loop` / `gensyn challenge --loop` process, honest or playing the adversary the scenario names (docs/adversaries.md), and each job of the scenario is submitted by a `gensyn submit --wait` process. Solvers list offers in the SolverBook and follow the posted price (docs/market.md); a scenario can make them leave (`leaveAfterSeconds`), kill one mid-task (`dropout`), and submit jobs over time (`at`, `count`). The report says who was slashed (training timeouts included), who was paid (fees, slash shares, the jackpot), every dispute with its rounds and gas, the escrow, payments and refund of each task (checked to the wei), every offer listed and withdrawn, and charts the market price over the run; it checks that money is conserved to the wei. The default scenario has 1 submitter, 2 solvers, 2 verifiers, 1 whistleblower and one MNIST MLP job. Logs go to <state-dir>/logs.'
  static override examples = [
    {description: 'Run the default scenario until its job has settled, then print the report', command: '<%= config.bin %> <%= command.id %> --until-settled'},
    {description: 'The CI smoke test: exit code 0 only if every expectation held', command: '<%= config.bin %> <%= command.id %> --scenario fixtures/scenarios/smoke.yaml --until-settled --json'},
    {description: 'Keep a devnet up for manual play (Ctrl-C stops it and every actor)', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'A colluding solver and verifier caught by a whistleblower through the pinpoint dispute', command: '<%= config.bin %> <%= command.id %> --scenario fixtures/scenarios/colluding.yaml --until-settled'},
    {description: 'Cheap solvers leave, the price climbs until reserve solvers join; the report charts the price', command: '<%= config.bin %> <%= command.id %> --scenario fixtures/scenarios/supply-shock.yaml --until-settled'},
  ]
  static override flags = {
    scenario: Flags.string({description: 'Scenario YAML (actors, jobs, chain parameters, expectations). Default: the embedded one.'}),
    'until-settled': Flags.boolean({description: 'Exit once every job has settled; exit code 0 only if every expectation held.'}),
    'state-dir': Flags.string({description: 'Folder for devnet.json, the blob store and logs.', default: '.gensyn', env: 'GENSYN_STATE_DIR'}),
    backend: Flags.string({description: "Backend for every actor (overrides the scenario's).", options: ['wasm', 'cpu', 'gpu']}),
    port: Flags.integer({description: 'Port for anvil (default: a free one).', min: 1, max: 65_535}),
    timeout: Flags.integer({description: "Give up after this many seconds (default: the scenario's timeoutSeconds).", min: 1}),
  }

  async run(): Promise<DevnetReport | undefined> {
    const {flags} = await this.parse(DevnetUp)
    const scenario = flags.scenario ? await loadScenario(flags.scenario) : resolveDefaultScenario()
    const narrate = createDevnetLog((line) => this.log(line))
    const {report, interrupted} = await withInterrupt((signal) =>
      runDevnet({
        scenario,
        stateDir: flags['state-dir'],
        backend: flags.backend as 'wasm' | 'cpu' | 'gpu' | undefined,
        port: flags.port,
        untilSettled: flags['until-settled'],
        timeoutSeconds: flags.timeout,
        signal,
        onEvent: flags.json ? undefined : narrate,
      }),
    )
    this.log(renderReport(report))
    this.log(`report: ${path.join(flags['state-dir'], 'report.json')}, logs: ${path.join(flags['state-dir'], 'logs')}`)
    const failed = flags['until-settled'] && !report.ok
    if (flags.json) this.logJson(report)
    if (interrupted && flags['until-settled']) this.exit(130)
    if (failed) this.exit(1)
    return undefined
  }
}
