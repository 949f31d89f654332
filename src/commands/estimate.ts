import {Args, Flags} from '@oclif/core'
import {formatEther, parseEther} from 'viem'

import {InvalidInputError} from '../errors/base.js'
import {defaultVerifierFeeBps, type EstimateReport, estimateReport} from '../ml/estimate/estimateReport.js'
import {defaultWorkTable, opClasses, weightMilli, type WorkTable} from '../ml/estimate/workTable.js'
import {loadJobSpec} from '../ml/spec/loadJobSpec.js'
import {maxPriceWei} from '../ml/spec/maxPriceWei.js'
import {connect} from '../protocol/connect.js'
import {getMarketParams} from '../protocol/getMarketParams.js'
import {getWorkTable} from '../protocol/getWorkTable.js'
import {BaseCommand} from '../ui/baseCommand.js'
import {renderTable} from '../ui/renderTable.js'

/** The report, plus where the work table and the price came from. */
export type EstimateOutput = EstimateReport & {tableSource: string; priceSource: 'flag' | 'payment.maxPrice'}

const ethAmount = /^(0|[1-9][0-9]*)(\.[0-9]{1,18})?$/
const grouped = (n: number | bigint) => n.toLocaleString('en-US')
const bytes = (n: number) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(2)} MiB` : `${(n / 1024).toFixed(1)} KiB`)

export default class Estimate extends BaseCommand {
  static override summary = "Estimate a job's work: FLOPs by operation class, memory, work units and the fee at a price."
  static override description =
    "Unrolls the job's model into the kernel calls one training step runs (forward pass, softmax cross-entropy loss, backward pass and optimizer update, per layer), counts their FLOPs per operation class, and weights them with the protocol's work table into work units (docs/market.md, section 1). Prints FLOPs per step and for the task, memory, work units, and the fee at a price: what the solver is paid, the verifier's fee and the escrow a submission locks. Nothing is trained. A spec beyond a protocol limit (steps, layers, batch size, tensor size, work units) is refused with the field named. By default the work table is the one built in (the deployed defaults); with --rpc-url, --state-dir or --market it is read from the chain's ProtocolConfig, with its verifier fee."
  static override examples = [
    {description: 'Estimate a job with the built-in work table, the fee at its payment.maxPrice', command: '<%= config.bin %> <%= command.id %> fixtures/jobs/mnist-cnn.yaml'},
    {description: 'The fee at another price (ETH per work unit)', command: '<%= config.bin %> <%= command.id %> fixtures/jobs/mnist-mlp.yaml --price 0.000005'},
    {description: "Use the local devnet's work table and verifier fee", command: '<%= config.bin %> <%= command.id %> job.yaml --state-dir .gensyn'},
    {description: 'Script it: one JSON object on stdout (bigints as strings)', command: '<%= config.bin %> <%= command.id %> job.yaml --json | jq .workUnits'},
  ]
  static override args = {
    job: Args.string({description: 'Path to the job spec (YAML).', required: true}),
  }
  static override flags = {
    price: Flags.string({description: 'Price in ETH per work unit to show the fee at (default: the spec\'s payment.maxPrice).'}),
    'verifier-fee-bps': Flags.integer({description: `Verifier fee in basis points of the solver's pay (default: ${defaultVerifierFeeBps}, or the chain's with a connection).`, min: 0, max: 65535}),
    'rpc-url': Flags.string({description: "JSON-RPC URL: read the work table from this chain's ProtocolConfig.", helpGroup: 'CONNECTION'}),
    'state-dir': Flags.string({description: "Devnet folder (devnet.json): read the work table from that devnet's ProtocolConfig.", helpGroup: 'CONNECTION'}),
    market: Flags.string({description: "TaskMarket address: read the work table from the ProtocolConfig it uses.", helpGroup: 'CONNECTION'}),
    registry: Flags.string({description: 'RoleRegistry address (with --rpc-url and --market, where no devnet.json names it).', helpGroup: 'CONNECTION'}),
  }

  async run(): Promise<EstimateOutput> {
    const {args, flags} = await this.parse(Estimate)
    const spec = await loadJobSpec(args.job)
    if (flags.price !== undefined && !ethAmount.test(flags.price))
      throw new InvalidInputError(`--price: expected a decimal ETH amount per work unit like "0.00001", got "${flags.price}"`)
    const price = flags.price === undefined ? maxPriceWei(spec) : parseEther(flags.price)

    let table: WorkTable = defaultWorkTable
    let verifierFeeBps = flags['verifier-fee-bps'] ?? defaultVerifierFeeBps
    let tableSource = 'built-in defaults (docs/market.md)'
    if (flags['rpc-url'] !== undefined || flags['state-dir'] !== undefined || flags.market !== undefined) {
      const connection = await connect({rpcUrl: flags['rpc-url'], market: flags.market, registry: flags.registry, stateDir: flags['state-dir'] ?? '.gensyn'})
      table = await getWorkTable(connection)
      verifierFeeBps = flags['verifier-fee-bps'] ?? (await getMarketParams(connection)).verifierFeeBps
      tableSource = `ProtocolConfig on ${connection.rpcUrl}`
    }

    const report: EstimateOutput = {
      ...estimateReport({spec, table, price, verifierFeeBps}),
      tableSource,
      priceSource: flags.price === undefined ? 'payment.maxPrice' : 'flag',
    }
    this.log(render(report, args.job))
    return report
  }
}

function render(report: EstimateOutput, path: string): string {
  const {stepRange, steps, table} = report
  const range = stepRange.start === 0 ? `${steps} steps` : `${steps} steps (${stepRange.start} to ${stepRange.end})`
  const lines = [`${report.name} (${path}): ${range}, batch ${report.batchSize}`, `work table: ${report.tableSource}`, '']
  const rows = opClasses.map((opClass) => {
    const perStep = report.flopsByClass[opClass]
    return [opClass, grouped(perStep), grouped(perStep * steps), (weightMilli(table, opClass) / 1000).toFixed(3)]
  })
  rows.push(['total', grouped(report.flopsPerStep), grouped(report.flops), ''])
  lines.push(renderTable(['CLASS', 'FLOPS/STEP', 'FLOPS (TASK)', 'WEIGHT'], rows), '')
  const phases = (['forward', 'loss', 'backward', 'optimizer'] as const).map((phase) => {
    const f = report.flopsByPhase[phase]
    return `${phase} ${grouped(f.matmul + f.conv + f.elementwise + f.transcendental)}`
  })
  lines.push(`per step by phase: ${phases.join(', ')}`)
  lines.push(`memory: ${bytes(report.memoryBytes)} (parameters, gradients, optimizer state and one step's activations, float32)`)
  lines.push(`work units: ${report.workUnitsPerStep.toPrecision(6)} per step, ${grouped(report.workUnits)} for the task (1 unit = ${grouped(table.flopsPerWorkUnit)} weighted FLOPs)`)
  const source = report.priceSource === 'flag' ? '--price' : 'payment.maxPrice'
  lines.push(
    `fee at ${formatEther(report.price)} ETH per work unit (${source}): solver ${formatEther(report.solverPay)} ETH + verifier fee (${report.verifierFeeBps / 100} %) ${formatEther(report.verifierFee)} ETH = escrow ${formatEther(report.escrow)} ETH`,
  )
  if (report.tasks) {
    const first = report.tasks[0]
    const same = report.tasks.every((task) => task.workUnits === first?.workUnits)
    const each = same && first ? `${grouped(first.workUnits)} work units and an escrow of ${formatEther(first.escrow)} ETH each` : report.tasks.map((t) => `${grouped(t.workUnits)}`).join(', ')
    const total = report.tasks.reduce((sum, task) => sum + task.escrow, 0n)
    const shards = report.tasks.filter((task) => task.index === 0).length
    const rounds = shards > 1 ? ` (${report.tasks.length / shards} rounds of ${shards} parallel shards)` : ''
    lines.push(`split into ${report.tasks.length} tasks${rounds} of ${(first?.end ?? 0) - (first?.start ?? 0)} steps: ${each} (escrow in all ${formatEther(total)} ETH)`)
  }
  return lines.join('\n')
}
