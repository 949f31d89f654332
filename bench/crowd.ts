// Scale mode (issue 20, point 5; docs/scenarios.md, "Crowds"): runs `gensyn devnet up --scenario crowd` (the built
// CLI) BENCH_RUNS times (default 1) and prints each run's figures from its report: task lifecycles per minute, memory
// per simulated actor, the wall time and who caught which wrong proof. BENCH_SCENARIO picks another crowd scenario.
//
//   npm run build && npx tsx bench/crowd.ts
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {execa} from 'execa'

import type {DevnetReport} from '../src/sim/buildReport.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const scenario = process.env.BENCH_SCENARIO ?? 'crowd'
const runs = Number(process.env.BENCH_RUNS ?? 1)

const rows: string[][] = []
for (let run = 1; run <= runs; run++) {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-crowd-bench-'))
  const started = performance.now()
  try {
    process.stderr.write(`run ${run}: gensyn devnet up --scenario ${scenario} --until-settled\n`)
    const child = await execa(process.execPath, [path.join(repoRoot, 'bin/run.js'), 'devnet', 'up', '--scenario', scenario, '--until-settled', '--state-dir', stateDir], {cwd: repoRoot, reject: false, env: {FORCE_COLOR: '0'}})
    const seconds = (performance.now() - started) / 1000
    const report = JSON.parse(await readFile(path.join(stateDir, 'report.json'), 'utf8')) as DevnetReport
    const crowd = report.crowd
    if (!crowd) throw new Error(`${scenario}: the report has no crowd section (exit ${child.exitCode})`)
    rows.push([
      String(run),
      String(crowd.actors.total),
      `${crowd.tasks.settled}/${crowd.tasks.posted}`,
      crowd.lifecycles.perMinute.toFixed(1),
      crowd.memory.perActorMiB.toFixed(1),
      crowd.memory.peakRssMiB.map((mib) => mib.toFixed(0)).join('+'),
      seconds.toFixed(0),
      `${crowd.cheats.proofs}: ${crowd.cheats.rejected} rejected, ${crowd.cheats.caughtByWhistleblowers} caught, ${crowd.cheats.paid} paid`,
      report.ok ? 'ok' : `FAILED: ${report.failures.join('; ')}`,
    ])
  } finally {
    await rm(stateDir, {recursive: true, force: true})
  }
}
const header = ['run', 'actors', 'settled', 'lifecycles/min', 'MiB/actor', 'process peaks MiB', 'wall s', 'wrong proofs', 'expectations']
const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)))
for (const row of [header, ...rows]) process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}\n`)
