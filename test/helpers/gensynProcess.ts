import {createInterface} from 'node:readline'

import {execa, type ResultPromise} from 'execa'

import {gensynBin, repoRoot} from './cli.js'

export type JsonLine = Record<string, unknown> & {type?: string}
export type GensynProcess = {child: ResultPromise; lines: JsonLine[]; output: string[]}

/** A long-running gensyn process whose JSON lines are collected as they come. */
export function startGensyn(args: string[], env: Record<string, string> = {}): GensynProcess {
  const child = execa(process.execPath, [gensynBin, ...args], {cwd: repoRoot, env: {FORCE_COLOR: '0', ...env}, reject: false, stdin: 'ignore', buffer: false})
  const lines: JsonLine[] = []
  const output: string[] = []
  createInterface({input: child.stdout!}).on('line', (line) => {
    output.push(line)
    if (line.startsWith('{')) lines.push(JSON.parse(line) as JsonLine)
  })
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  return {child, lines, output}
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the process is gone. Safe on an undefined or exited process. */
export async function stopGensyn(process: {child: ResultPromise} | undefined): Promise<void> {
  if (!process) return
  const {child} = process
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await child
  clearTimeout(timer)
}
