import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {execa} from 'execa'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

import type {GasByPhase} from '../src/sim/report/types.js'

/** The run's gas per protocol phase, from its report (docs/report.md), and how many tasks it settled. */
export type DevnetGas = {phases: GasByPhase; settledTasks: number}

/** Seconds since `devnet up` started at which the run's first task reached each step of its life. */
export type TaskMilestones = {claimed: number; committed: number; verdict: number; settled: number}

export type DevnetTimings = {
  scenario: string
  contractsDeployed: number
  actorsReady: number
  firstSettled: number
  exited: number
  /** The first task's milestones, each from the line an actor prints (undefined where none was printed). */
  firstTask: Partial<TaskMilestones>
  gas: DevnetGas
}

/** The lines of `devnet up` (an actor's name, then `task N: ...`) that mark each milestone of a task. */
const settledLine = /\btask (\d+): (Settled|settled)/
const milestoneLines: [keyof TaskMilestones, RegExp][] = [
  ['claimed', /\btask (\d+): claimed at\b/],
  ['committed', /\btask (\d+): committed \d+ checkpoints/],
  ['verdict', /\btask (\d+): verdict /],
  ['settled', settledLine],
]

/**
 * The phases issue 20 asks the bench to break the time to the first settlement into, from the milestones. They
 * follow one another, so they add up to the first task's settlement; the actors' start is inside the second (a
 * solver claims as soon as it is ready, and `ready` above says when the first solver and verifier were).
 */
export function phasesOf(t: DevnetTimings): [phase: string, seconds: number | undefined][] {
  const {claimed, committed, verdict, settled} = t.firstTask
  const between = (from: number | undefined, to: number | undefined) => (from === undefined || to === undefined ? undefined : to - from)
  return [
    ['deploy (anvil and contracts)', t.contractsDeployed],
    ['actors start and claim (deployed to claimed)', between(t.contractsDeployed, claimed)],
    ['training (claimed to committed)', between(claimed, committed)],
    ['verification (committed to verdict)', between(committed, verdict)],
    ['challenge window (verdict to settled)', between(verdict, settled)],
  ]
}

/** One line of a run: its milestones, then the breakdown of the time to the first settlement. */
export function formatTimings(t: DevnetTimings): string {
  const phases = phasesOf(t)
    .map(([phase, seconds]) => `${phase.split(' (')[0]} ${seconds === undefined ? '-' : seconds.toFixed(2)}`)
    .join(', ')
  return `deployed ${t.contractsDeployed.toFixed(2)}, ready ${t.actorsReady.toFixed(2)}, first settled ${t.firstSettled.toFixed(2)}, exited ${t.exited.toFixed(2)} | ${phases}`
}

/**
 * Wall-clock seconds from spawning `gensyn devnet up` to each milestone it prints, for one real run of a
 * scenario (the built CLI, a real anvil, real actor processes and training). `root`: the checkout whose built CLI
 * runs (this one by default); a relative scenario is read from it.
 */
export async function benchDevnet(scenario = 'fixtures/scenarios/smoke.yaml', root = repoRoot): Promise<DevnetTimings> {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-bench-'))
  const started = performance.now()
  const since = () => (performance.now() - started) / 1000
  const firstTask: Partial<TaskMilestones> = {}
  const marks: Partial<DevnetTimings> = {scenario, firstTask}
  const readyActors = new Set<string>()
  let firstTaskId: string | undefined
  try {
    const child = execa(process.execPath, [path.join(root, 'bin/run.js'), 'devnet', 'up', '--scenario', scenario, '--until-settled', '--state-dir', stateDir], {
      cwd: root,
      reject: false,
      env: {FORCE_COLOR: '0'},
    })
    createInterface({input: child.stdout!}).on('line', (line) => {
      if (marks.contractsDeployed === undefined && line.includes('contracts: market')) marks.contractsDeployed = since()
      const ready = /^(\S+)\s+ready as/.exec(line)
      if (ready?.[1]) readyActors.add(ready[1])
      if (marks.actorsReady === undefined && readyActors.size >= 2 && [...readyActors].some((name) => name.startsWith('verifier'))) marks.actorsReady = since()
      if (marks.firstSettled === undefined && settledLine.test(line)) marks.firstSettled = since()
      // The first task is the first one claimed; its later milestones are read for the same task id.
      for (const [milestone, pattern] of milestoneLines) {
        const task = pattern.exec(line)?.[1]
        if (task === undefined || firstTask[milestone] !== undefined) continue
        if (milestone === 'claimed') firstTaskId ??= task
        if (task === firstTaskId) firstTask[milestone] = since()
      }
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

/**
 * `npx tsx bench/devnet.ts [scenario]`: the milestones of BENCH_RUNS (default 3) runs of the scenario (smoke by
 * default). With BENCH_AGAINST=<another checkout, built> the runs alternate with that checkout's, each on its own
 * scenario file of the same path, so a change to the CLI or to the scenario is measured against the commit before it.
 */
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const scenario = process.argv[2] ?? 'fixtures/scenarios/smoke.yaml'
  const runs = Number(process.env.BENCH_RUNS ?? 3)
  const roots: [label: string, root: string][] = process.env.BENCH_AGAINST ? [['base', path.resolve(process.env.BENCH_AGAINST)], ['this', repoRoot]] : [['this', repoRoot]]
  console.log(`${scenario}: seconds since \`devnet up\` started (contracts deployed, a solver and a verifier ready, first task settled, exited with the report) | the first task's phases in seconds`)
  for (let run = 1; run <= runs; run++) {
    for (const [label, root] of roots) {
      const t = await benchDevnet(scenario, root)
      console.log(`${label.padEnd(4)} run ${run}: ${formatTimings(t)}`)
    }
  }
}
