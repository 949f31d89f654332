// `npm run bench:disputes`: the dispute and incentive figures of docs/disputes.md, measured in one run.
//  1. every adversarial devnet scenario, run for real (anvil, contracts, actor processes training MNIST):
//     on-chain rounds per dispute against ceil(log2 k) + ceil(log2 ops) + 2, gas per dispute, and chain-clock
//     seconds from the challenge to the game's resolution;
//  2. the expected value of each cheating strategy at the default parameters, with the amounts at stake
//     taken from those reports (what each adversary actually lost) and the probabilities from the config.
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import os from 'node:os'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {execa} from 'execa'
import {formatEther, parseEther} from 'viem'
import {parse as parseYaml} from 'yaml'

import {defaultProtocolParams} from '../src/chain/deployContracts.js'
import type {DevnetReport} from '../src/sim/buildReport.js'
import {benchArbitration} from './disputeArbitration.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const scenarios = (process.env.BENCH_SCENARIOS ?? 'griefer,colluding,staller,lazy-verifier,forced-error').split(',')

/** Operators in one traced training step of the smoke MLP (src/dispute traceStep; docs/disputes.md). */
async function opsPerStep(): Promise<number> {
  const {selectBackend} = await import('../src/ml/backend/selectBackend.js')
  const {loadJobSpec} = await import('../src/ml/spec/loadJobSpec.js')
  const {initialCheckpoint} = await import('../src/ml/checkpoint/initialCheckpoint.js')
  const {traceStep} = await import('../src/dispute/traceStep.js')
  await selectBackend('wasm')
  const spec = await loadJobSpec(path.join(repoRoot, 'fixtures/jobs/smoke-mlp.yaml'))
  const trace = await traceStep({spec, state: initialCheckpoint(spec)})
  return trace.opCount
}

async function runScenario(name: string): Promise<DevnetReport> {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-bench-disputes-'))
  try {
    const run = await execa(process.execPath, [path.join(repoRoot, 'bin/run.js'), 'devnet', 'up', '--scenario', `fixtures/scenarios/${name}.yaml`, '--until-settled', '--json', '--state-dir', stateDir], {
      cwd: repoRoot,
      reject: false,
      env: {FORCE_COLOR: '0'},
    })
    const report = JSON.parse(await readFile(path.join(stateDir, 'report.json'), 'utf8')) as DevnetReport
    if (run.exitCode !== 0 || !report.ok) throw new Error(`${name}: exit ${run.exitCode}: ${report.failures.join('; ')}`)
    return report
  } finally {
    await rm(stateDir, {recursive: true, force: true})
  }
}

const eth = (wei: bigint) => Number(formatEther(wei)).toFixed(4)

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`)
const ops = await opsPerStep()
const smoke = parseYaml(await readFile(path.join(repoRoot, 'fixtures/jobs/smoke-mlp.yaml'), 'utf8')) as {proof: {checkpointInterval: number}; payment: {fee: string; verifierShare: number}}
const k = smoke.proof.checkpointInterval
const bound = Math.ceil(Math.log2(k)) + Math.ceil(Math.log2(ops)) + 2
console.log(`\n1. disputes on the devnet (smoke MLP: k = ${k} steps per segment, ${ops} operators per step; bound ceil(log2 k) + ceil(log2 ops) + 2 = ${bound})`)
console.log(`${'scenario'.padEnd(15)} ${'prover v challenger'.padEnd(34)} outcome        by           question       rounds  bound        gas   seconds`)
const arbitration = await benchArbitration('Relu', 60)
console.log(
  [
    'in-process'.padEnd(15),
    'corrupt-Relu solver v whistleblower'.padEnd(34),
    arbitration.outcome.padEnd(14),
    'Arbitration'.padEnd(12),
    `element ${arbitration.element}/${arbitration.ops}`.padEnd(14),
    String(arbitration.rounds).padStart(6),
    String(bound).padStart(6),
    arbitration.gasUsed.toString().padStart(10),
    `${arbitration.seconds.toFixed(1)} (wall)`.padStart(9),
  ].join(' '),
)
if (arbitration.element !== arbitration.corruptedElement) throw new Error(`the pinpoint landed on element ${arbitration.element}, the corruption was at ${arbitration.corruptedElement}`)
const reports = new Map<string, DevnetReport>()
for (const name of scenarios) {
  const report = await runScenario(name)
  reports.set(name, report)
  for (const dispute of report.disputes) {
    console.log(
      [
        name.padEnd(15),
        `${dispute.prover} v ${dispute.challenger}`.padEnd(34),
        dispute.outcome.padEnd(14),
        dispute.reason.padEnd(12),
        dispute.question.padEnd(14),
        String(dispute.rounds).padStart(6),
        String(bound).padStart(6),
        dispute.gasUsed.padStart(10),
        String(dispute.seconds).padStart(9),
      ].join(' '),
    )
  }
  if (report.disputes.length === 0) console.log(`${name.padEnd(15)} (no dispute game: ${report.jackpot.payouts.length} jackpot payouts)`)
}

// 2. Expected value per task of each cheating strategy, against playing honestly, at the default parameters.
const params = defaultProtocolParams
const p = (bps: number) => bps / 10_000
const lostBy = (scenario: string, actor: string) => {
  const found = reports.get(scenario)?.accounts.find((account) => account.name === actor)
  return found ? BigInt(found.slashed) : undefined
}
const fee = parseEther(smoke.payment.fee)
const verifierFee = (fee * BigInt(Math.round(smoke.payment.verifierShare * 1000))) / 1000n
const solverFee = fee - verifierFee
type Row = {strategy: string; gain: bigint; loss: bigint; catchProbability: number; source: string}
const rows: Row[] = [
  // A lazy verifier saves at most its whole fee in compute and is caught whenever the task is a forced error.
  {strategy: 'lazy-verifier', gain: verifierFee, loss: lostBy('lazy-verifier', 'lazy-verifier-1') ?? params.verifierStake, catchProbability: p(params.forcedErrorBps), source: 'forced errors only'},
  // A colluding pair saves the solver's training; a whistleblower that replays the task catches it every time.
  {strategy: 'colluding pair', gain: solverFee, loss: (lostBy('colluding', 'cheater-1') ?? params.solverStake) + (lostBy('colluding', 'colluding-verifier-1') ?? params.verifierStake), catchProbability: 1, source: 'one active whistleblower'},
  // A griefer gains nothing from a correct proof (an honest committee majority) and loses its deposit.
  {strategy: 'griefer', gain: 0n, loss: lostBy('griefer', 'griefer-1') ?? params.challengeDeposit, catchProbability: 1, source: 'honest committee majority'},
  // A staller keeps nothing: a silent party loses by timeout.
  {strategy: 'staller', gain: 0n, loss: lostBy('staller', 'cheater-1') ?? params.solverStake, catchProbability: 1, source: 'round timeout'},
]
console.log(`\n2. expected value per task vs honest play, default parameters (smoke job fee ${smoke.payment.fee} ETH; losses observed in the reports above)`)
console.log('strategy         gain if unseen (ETH)  loss when caught  P(caught)  EV (ETH)   P(caught) source')
for (const row of rows) {
  const ev = (1 - row.catchProbability) * Number(formatEther(row.gain)) - row.catchProbability * Number(formatEther(row.loss))
  console.log(
    [row.strategy.padEnd(16), eth(row.gain).padStart(20), eth(row.loss).padStart(17), row.catchProbability.toFixed(2).padStart(10), ev.toFixed(4).padStart(9), ` ${row.source}`].join(' '),
  )
}
for (const job of ['smoke-mlp', 'mnist-mlp', 'mnist-cnn']) {
  const {payment} = parseYaml(await readFile(path.join(repoRoot, `fixtures/jobs/${job}.yaml`), 'utf8')) as {payment: {fee: string; verifierShare: number}}
  const jobVerifierFee = Number(payment.fee) * payment.verifierShare
  const breakEven = Math.ceil((jobVerifierFee / Number(formatEther(params.verifierStake))) * 10_000)
  console.log(`lazy verifier on ${job}: verifier fee ${jobVerifierFee.toFixed(4)} ETH; laziness loses money while forcedErrorBps > ${breakEven} (default ${params.forcedErrorBps}): EV ${(jobVerifierFee - p(params.forcedErrorBps) * Number(formatEther(params.verifierStake))).toFixed(4)} ETH`)
}
