// What loading a command costs every CLI start (each actor of a devnet, each command a test or a user runs): the
// command's module loaded file by file from tsc's output (dist/commands) against the esbuild bundle oclif loads
// (dist/cli/commands, scripts/bundle-cli.mjs), side by side in one run: `npx tsx bench/cliStartup.ts` after
// `npm run build`. With BENCH_AGAINST=<another checkout, built> the first column is that checkout's bundle instead
// of tsc's files: a change to the bundle measured against the commit before it
// (`git worktree add /tmp/base HEAD~1 && cd /tmp/base && ln -s "$OLDPWD/node_modules" && npm run build`).
//  - each sample is a fresh `node` that imports one command's module and reports the wall time of the import, its
//    own CPU time (user + system, the process's whole life) and its resident memory after the import;
//  - samples alternate between the two, BENCH_REPS (default 7) of each per command; medians with the min-max spread.
import {execFileSync} from 'node:child_process'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

import {packageRoot} from '../src/util/packageRoot.js'

const commands = ['verify', 'solve', 'submit', 'devnet/up', 'tasks/list']
const reps = Number(process.env.BENCH_REPS ?? 7)
const against = process.env.BENCH_AGAINST ? path.resolve(process.env.BENCH_AGAINST) : undefined
const baseline = against
  ? {label: 'base', file: (command: string) => path.join(against, 'dist', 'cli', 'commands', `${command}.js`)}
  : {label: 'files', file: (command: string) => path.join(packageRoot, 'dist', 'commands', `${command}.js`)}

type Sample = {importMs: number; cpuMs: number; rssMiB: number}

function sample(file: string): Sample {
  const url = pathToFileURL(file).href
  const program = `const t = performance.now(); await import(${JSON.stringify(url)}); const ms = performance.now() - t; const {user, system} = process.cpuUsage(); console.log(JSON.stringify({importMs: ms, cpuMs: (user + system) / 1000, rssMiB: process.memoryUsage().rss / 2 ** 20}))`
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', program], {cwd: packageRoot, encoding: 'utf8'})) as Sample
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
const range = (values: number[]) => `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}`

const head = (what: string) => `${what}: ${baseline.label.padStart(5)}  bundle  ratio`
console.log(`${against ? `base: ${against}\n` : ''}command      ${head('import ms')}   ${head('CPU ms')}   ${head('RSS MiB')}   (medians of ${reps}, min-max)`)
for (const command of commands) {
  const before: Sample[] = []
  const bundled: Sample[] = []
  for (let rep = 0; rep < reps; rep++) {
    before.push(sample(baseline.file(command)))
    bundled.push(sample(path.join(packageRoot, 'dist', 'cli', 'commands', `${command}.js`)))
  }
  const cells = (pick: (s: Sample) => number) => {
    const [a, b] = [before.map(pick), bundled.map(pick)]
    return `${median(a).toFixed(0).padStart(6)} ${median(b).toFixed(0).padStart(7)} ${(median(a) / median(b)).toFixed(2).padStart(6)}x (${range(a)} / ${range(b)})`
  }
  console.log(`${command.padEnd(12)} ${cells((s) => s.importMs)}   ${cells((s) => s.cpuMs)}   ${cells((s) => s.rssMiB)}`)
}
