import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

import {execa} from 'execa'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

import type {GasByPhase} from '../src/sim/report/types.js'

/** The run's gas per protocol phase, from its report (docs/report.md), and how many tasks it settled. */
export type DevnetGas = {phases: GasByPhase; settledTasks: number}

export type DevnetTimings = {scenario: string; contractsDeployed: number; actorsReady: number; firstSettled: number; exited: number; gas: DevnetGas}

/**
 * Wall-clock seconds from spawning `gensyn devnet up` to each milestone it prints, for one real run of a
 * scenario (the built CLI, a real anvil, real actor processes and training).
 */
export async function benchDevnet(scenario = 'fixtures/scenarios/smoke.yaml'): Promise<DevnetTimings> {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-bench-'))
  const started = performance.now()
  const since = () => (performance.now() - started) / 1000
  const marks: Partial<DevnetTimings> = {scenario}
  const readyActors = new Set<string>()
  try {
    const child = execa(process.execPath, [path.join(repoRoot, 'bin/run.js'), 'devnet', 'up', '--scenario', scenario, '--until-settled', '--state-dir', stateDir], {
      cwd: repoRoot,
      reject: false,
      env: {FORCE_COLOR: '0'},
    })
    createInterface({input: child.stdout!}).on('line', (line) => {
      if (marks.contractsDeployed === undefined && line.includes('contracts: market')) marks.contractsDeployed = since()
      const ready = /^(\S+)\s+ready as/.exec(line)
      if (ready?.[1]) readyActors.add(ready[1])
      if (marks.actorsReady === undefined && readyActors.size >= 2 && [...readyActors].some((name) => name.startsWith('verifier'))) marks.actorsReady = since()
      if (marks.firstSettled === undefined && /task \d+: (Settled|settled)/.test(line)) marks.firstSettled = since()
    })
    const result = await child
    marks.exited = since()
    if (result.exitCode !== 0) throw new Error(`devnet up exited with ${result.exitCode}: ${String(result.stderr).slice(-500)}`)
    const report = JSON.parse(await readFile(path.join(stateDir, 'report.json'), 'utf8')) as {tasks: {status: string}[]; history?: {gas: GasByPhase}}
    marks.gas = {phases: report.history?.gas ?? [], settledTasks: report.tasks.filter((task) => task.status === 'Settled').length}
    return marks as DevnetTimings
  } finally {
    await rm(stateDir, {recursive: true, force: true})
  }
}
