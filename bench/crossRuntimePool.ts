// The cross-runtime bench (bench/crossRuntime.ts) over worker processes, for a GPU host with many cores: every
// profile seed and every held-out seed of every plan is one job, and `workers` forked copies of the entry script
// take them from one queue (each process has its own WebGPU device on the shared adapter and its own wasm
// backend). Workers send back raw distances; the parent judges them by the thresholds of the profile seeds. A
// deadline stops handing out jobs and ends the workers, so a run cut short still judges and prints what came back.
import {fork, type ChildProcess} from 'node:child_process'
import {mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'

import type {JobSpec} from '../src/ml/spec/index.js'
import {crossRuntimeTables, heldOutSeed, judgePlan, planRuntimes, planSpec, profileSeed, runningCounts, type CrossRuntimeResult, type Plan, type ProfilePart, type SeedRecords} from './crossRuntime.js'

/** Set in a worker's environment: the entry script serves jobs instead of running its bench. */
export const crossRuntimeWorker = 'GENSYN_CROSS_RUNTIME_WORKER'

type Job = {label: string; kind: 'profile' | 'held-out'; index: number}
type Answer = {job: Job; part?: ProfilePart; seed?: SeedRecords; error?: string}

const log = (line: string) => process.stderr.write(`${line}\n`)

/** A worker's loop: one job per message from the parent, one answer back. */
export async function serveCrossRuntimeJobs(plans: Plan[]): Promise<void> {
  const bases = new Map<string, JobSpec>()
  const answer = async (job: Job): Promise<Answer> => {
    const plan = plans.find((p) => p.label === job.label) as Plan
    if (!bases.has(plan.label)) bases.set(plan.label, await planSpec(plan))
    const base = bases.get(plan.label) as JobSpec
    if (job.kind === 'profile') return {job, part: await profileSeed(plan, base, job.index)}
    return {job, seed: await heldOutSeed(plan, base, job.index, job.index < plan.cheatSeeds)}
  }
  let chain = Promise.resolve()
  process.on('message', (job: Job) => {
    chain = chain.then(async () => {
      const reply = await answer(job).catch((error: unknown) => ({job, error: error instanceof Error ? error.message : String(error)}))
      process.send?.(reply)
    })
  })
  process.on('disconnect', () => process.exit(0))
  await new Promise(() => {})
}

/** Profile seeds first (the thresholds need them), then held-out seeds round robin over the plans. */
function queueOf(plans: Plan[]): Job[] {
  const jobs: Job[] = plans.flatMap((plan) => Array.from({length: plan.profileSeeds}, (_, index) => ({label: plan.label, kind: 'profile' as const, index})))
  const most = Math.max(...plans.map((p) => p.heldOutSeeds))
  for (let index = 0; index < most; index++) for (const plan of plans) if (index < plan.heldOutSeeds) jobs.push({label: plan.label, kind: 'held-out', index})
  return jobs
}

export type PoolOptions = {workers: number; deadlineSeconds?: number | undefined; out?: string | undefined}

/** Runs `plans` over `workers` processes of this script; prints each plan's tables and returns the results. */
export async function runCrossRuntimeParallel(plans: Plan[], {workers, deadlineSeconds, out}: PoolOptions): Promise<CrossRuntimeResult[]> {
  const t0 = performance.now()
  const queue = queueOf(plans)
  const profile = new Map<string, ProfilePart[]>(plans.map((p) => [p.label, []]))
  const seeds = new Map<string, SeedRecords[]>(plans.map((p) => [p.label, []]))
  const context = new Map(await Promise.all(plans.map(async (plan) => [plan.label, {base: await planSpec(plan), runtimes: await planRuntimes(plan)}] as const)))
  const elapsed = () => (performance.now() - t0) / 1000
  const results = () =>
    plans
      .filter((plan) => (profile.get(plan.label) as ProfilePart[]).length > 0)
      .map((plan) => judgePlan({plan, ...(context.get(plan.label) as {base: JobSpec; runtimes: Record<string, string>}), profile: profile.get(plan.label) as ProfilePart[], seeds: seeds.get(plan.label) as SeedRecords[], seconds: elapsed()}))
  const save = async (judged: CrossRuntimeResult[]) => {
    if (!out) return
    await mkdir(path.dirname(path.resolve(out)), {recursive: true})
    await writeFile(out, `${JSON.stringify(judged, null, 2)}\n`)
  }
  const record = async ({job, part, seed, error}: Answer) => {
    if (error) return log(`${job.label} ${job.kind} ${job.index}: failed: ${error}`)
    if (part) (profile.get(job.label) as ProfilePart[]).push(part)
    if (seed) (seeds.get(job.label) as SeedRecords[]).push(seed)
    const judged = results()
    const result = judged.find((r) => r.label === job.label)
    log(`${job.label}: ${job.kind} seed ${job.index} done (${elapsed().toFixed(0)} s)${result && seed ? `; ${result.heldOutSeeds} held-out seeds: ${runningCounts(result)}` : ''}`)
    await save(judged)
  }
  await new Promise<void>((resolve) => {
    const running = new Set<ChildProcess>()
    const timer = deadlineSeconds === undefined ? undefined : setTimeout(() => {
      log(`cross-runtime: the ${deadlineSeconds} s limit ran out with ${queue.length} jobs not started; ending the workers`)
      queue.length = 0
      for (const child of running) child.kill('SIGKILL')
    }, deadlineSeconds * 1000)
    const next = (child: ChildProcess) => {
      const job = queue.shift()
      if (job) child.send(job)
      else child.disconnect()
    }
    for (let w = 0; w < Math.min(workers, queue.length); w++) {
      const child = fork(process.argv[1] as string, process.argv.slice(2), {env: {...process.env, [crossRuntimeWorker]: '1'}, execArgv: process.execArgv})
      running.add(child)
      child.on('message', (answer: Answer) => void record(answer).then(() => next(child)))
      child.on('exit', () => {
        running.delete(child)
        if (running.size === 0) {
          clearTimeout(timer)
          resolve()
        }
      })
      next(child)
    }
  })
  const final = results()
  for (const result of final) console.log(crossRuntimeTables(result))
  await save(final)
  return final
}
