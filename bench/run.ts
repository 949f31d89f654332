// `npm run bench`: every figure is measured side by side in this one run, on this machine.
//  1. solver training steps/s with proof checkpointing vs a plain tfjs loop on the same job (a ratio);
//  2. seconds from `gensyn devnet up` to the first settled task (the smoke scenario, real processes), and that
//     run's gas per protocol phase per settled task, against issue 18's 400k target for the honest lifecycle;
//  3. the proof's cost on the character transformer: trainJob with checkpoints against the same steps without;
//  4. training steps/s per backend (wasm, cpu, webgpu where an adapter is found) for each fixture model.
import os from 'node:os'

import {benchBackends} from './backends.js'
import {benchDevnet, phasesOf} from './devnet.js'
import {benchProofOverhead} from './proofOverhead.js'
import {benchTraining} from './training.js'

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`)

const {runtime, rows} = await benchTraining()
console.log(`\n1. training throughput on ${runtime} (median of 3, steps/s)`)
console.log('job          steps  ckpts  gensyn (with proof)  plain tfjs  gensyn/plain')
for (const row of rows) {
  console.log(
    [
      row.job.padEnd(12),
      String(row.steps).padStart(5),
      String(row.checkpoints).padStart(6),
      row.gensynStepsPerSecond.toFixed(1).padStart(20),
      row.plainStepsPerSecond.toFixed(1).padStart(11),
      row.ratio.toFixed(2).padStart(13),
    ].join(' '),
  )
}

const devnet = await benchDevnet('fixtures/scenarios/smoke.yaml')
console.log(`\n2. gensyn devnet up, scenario ${devnet.scenario} (seconds since the command started)`)
console.log(`contracts deployed      ${devnet.contractsDeployed.toFixed(1).padStart(6)}`)
console.log(`actors ready            ${devnet.actorsReady.toFixed(1).padStart(6)}`)
console.log(`first task settled      ${devnet.firstSettled.toFixed(1).padStart(6)}`)
console.log(`exited with the report  ${devnet.exited.toFixed(1).padStart(6)}`)
console.log("the first task's time to settlement (issue 20's target: 10 s in all), by phase:")
for (const [phase, seconds] of phasesOf(devnet)) console.log(`  ${phase.padEnd(46)} ${seconds === undefined ? '     -' : seconds.toFixed(1).padStart(6)}`)
// Issue 18's yardstick: an honest task's whole lifecycle (submit, claim, commit, verify, settle) in at most 400k gas.
const perTask = (gas: string) => (devnet.gas.settledTasks === 0 ? 0n : BigInt(gas) / BigInt(devnet.gas.settledTasks))
console.log(`gas per phase, per settled task (${devnet.gas.settledTasks} settled; target for the honest lifecycle: 400,000 in all)`)
for (const {phase, gas, transactions} of devnet.gas.phases) console.log(`${phase.padEnd(18)} ${perTask(gas).toLocaleString('en').padStart(10)}  (${transactions} transactions)`)
const lifecycle = devnet.gas.phases.filter(({phase}) => phase !== 'other').reduce((sum, {gas}) => sum + perTask(gas), 0n)
console.log(`${'lifecycle'.padEnd(18)} ${lifecycle.toLocaleString('en').padStart(10)}`)

const proof = await benchProofOverhead(['fixtures/jobs/sums-transformer.yaml'])
console.log(`\n3. the proof's cost on ${proof.runtime} (median of 3, steps/s)`)
for (const row of proof.rows)
  console.log(`${row.job}: ${row.withProof.toFixed(1)} with checkpoints, ${row.withoutProof.toFixed(1)} without (overhead ${(row.overhead * 100).toFixed(1)} %), final test loss ${row.finalTestLoss.toFixed(3)}`)

console.log('\n4. training steps/s per backend with proof checkpoints, median of 3 (ratio to wasm)')
console.log(await benchBackends())
