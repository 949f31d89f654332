import {type ChildProcess, spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {createInterface} from 'node:readline'

import {repoRoot} from './cli.js'

export type StoreServeProcess = {
  child: ChildProcess
  url: string
  pid: number
  /** Resolves with the summary line `store serve --json` prints when it stops. */
  summary: Promise<{requests: number; statuses: Record<string, number>; storedBytes: number}>
}

/**
 * `gensyn store serve --port 0 --json` with `args`, from source (through tsx, the command class run
 * directly: bin/dev.js would load dist/ when it exists, which may be stale), in a process of its own so that
 * its memory is the server's alone. Its request lines are read and dropped, so the pipe never fills.
 */
export async function startStoreServeProcess(args: string[]): Promise<StoreServeProcess> {
  const entry = `const {default: StoreServe} = await import(${JSON.stringify(`${repoRoot}/src/commands/store/serve.ts`)}); await StoreServe.run(process.argv.slice(1), ${JSON.stringify(repoRoot)})`
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', entry, '--', '--port', '0', '--json', ...args], {cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit']})
  let onSummary: (summary: Awaited<StoreServeProcess['summary']>) => void = () => undefined
  const summary = new Promise<Awaited<StoreServeProcess['summary']>>((resolve) => (onSummary = resolve))
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({input: child.stdout!}).on('line', (line) => {
      const event = JSON.parse(line) as {type?: string; url?: string; statuses?: Record<string, number>; requests: number; storedBytes: number}
      if (event.type === 'listening' && event.url) resolve(event.url)
      else if (event.statuses) onSummary({requests: event.requests, statuses: event.statuses, storedBytes: event.storedBytes})
    })
    child.once('exit', (code) => reject(new Error(`store serve exited (${code}) before it listened`)))
  })
  return {child, url, pid: child.pid!, summary}
}

/** Resident and peak resident memory (VmRSS, VmHWM) of a process in bytes, from the kernel's own account. */
export function memoryOf(pid: number): {rss: number; peak: number} {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) * 1024
  return {rss: field('VmRSS'), peak: field('VmHWM')}
}
