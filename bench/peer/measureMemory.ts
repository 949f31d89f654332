import {readdirSync, readFileSync} from 'node:fs'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {execa} from 'execa'

import {renderTable} from '../../src/ui/renderTable.js'

/** The devnet's actor roles, by the gensyn command each process runs. */
const roleOfCommand: Record<string, string> = {solve: 'solver', verify: 'verifier', challenge: 'whistleblower', submit: 'submitter'}
/** Issue 20's bound on one real actor process. */
const targetMiB = 150
const mib = 1024 * 1024

type Sampled = {pid: number; role: string; rss: number[]; peak: number}

/** Resident and peak resident memory (VmRSS, VmHWM) of a process in bytes, from the kernel's own account; undefined once it is gone. */
function memoryOf(pid: number): {rss: number; peak: number} | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) * 1024
    return {rss: field('VmRSS'), peak: field('VmHWM')}
  } catch {
    return undefined
  }
}

/** The gensyn actor processes the devnet `parent` has spawned, with the role each plays. */
function actorsOf(parent: number): {pid: number; role: string}[] {
  const out: {pid: number; role: string}[] = []
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // the parent pid is the field after the parenthesised command name, which may itself hold spaces
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== parent) continue
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
      const command = argv[argv.findIndex((arg) => arg.endsWith('run.js')) + 1] ?? ''
      const role = roleOfCommand[command]
      if (role) out.push({pid: Number(entry), role})
    } catch {
      // the process ended between the listing and the read
    }
  }
  return out
}

const scenarioYaml = (job: string) => `name: memory
description: the smoke scenario with one of each actor role, for bench:peer --memory
backend: wasm
actors: {submitters: 1, solvers: 1, verifiers: 1, whistleblowers: 1}
jobs:
  - file: ${JSON.stringify(job)}
chain: {blockTime: 1, challengeWindow: 3}
protocol: {forcedErrorBps: 0}
timeoutSeconds: 600
`

/**
 * Point 6 of issue 20: the resident memory of each real actor process (a submitter, a solver, a verifier and a
 * whistleblower: the smoke job on a devnet of one of each) while a task runs, sampled from /proc every 250 ms
 * from spawn to exit, and its peak (VmHWM), against the 150 MiB target. Runs the built CLI (`npm run build`).
 */
export async function measureMemory(repoRoot: string): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-bench-memory-'))
  try {
    const scenario = path.join(dir, 'memory.yaml')
    await writeFile(scenario, scenarioYaml(path.join(repoRoot, 'fixtures', 'jobs', 'smoke-mlp.yaml')))
    const child = execa(process.execPath, [path.join(repoRoot, 'bin', 'run.js'), 'devnet', 'up', '--scenario', scenario, '--until-settled', '--state-dir', path.join(dir, 'state')], {
      cwd: repoRoot,
      reject: false,
      env: {FORCE_COLOR: '0'},
    })
    const sampled = new Map<number, Sampled>()
    const sampler = setInterval(() => {
      for (const {pid, role} of actorsOf(child.pid as number)) {
        const memory = memoryOf(pid)
        if (!memory) continue
        const entry = sampled.get(pid) ?? {pid, role, rss: [], peak: 0}
        entry.rss.push(memory.rss)
        entry.peak = memory.peak
        sampled.set(pid, entry)
      }
    }, 250)
    const result = await child
    clearInterval(sampler)
    if (result.exitCode !== 0) throw new Error(`devnet up exited with ${result.exitCode}: ${String(result.stderr).slice(-500)}`)
    console.log(memoryTable([...sampled.values()]))
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
}

function memoryTable(actors: Sampled[]): string {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
  const rows = actors
    .sort((a, b) => a.role.localeCompare(b.role))
    .map((a) => [a.role, String(a.pid), String(a.rss.length), (median(a.rss) / mib).toFixed(1), (a.peak / mib).toFixed(1), a.peak / mib <= targetMiB ? 'met' : 'MISSED'])
  return renderTable(['role', 'pid', 'samples', 'median RSS MiB', 'peak RSS (VmHWM) MiB', `target <= ${targetMiB} MiB`], rows)
}
