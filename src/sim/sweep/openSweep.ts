import {existsSync} from 'node:fs'
import {isDeepStrictEqual} from 'node:util'
import {mkdir, readdir, readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {InvalidInputError} from '../../errors/base.js'
import {randomSeed} from '../../random/randomSeed.js'
import {readRun} from '../runs/readRun.js'
import {runFolder} from '../runRecord.js'
import type {ResolvedScenario} from '../scenario.js'
import {planCells} from './planCells.js'
import {cellPaths, sweepsDirOf} from './sweepPaths.js'
import type {SweepAxis, SweepCell, SweepPlan} from './types.js'

/** A sweep's folder and plan; `resumed` when an interrupted one was picked up instead of a new one made. */
export type OpenedSweep = {id: string; dir: string; plan: SweepPlan; resumed: boolean}

export type SweepRequest = {scenario: ResolvedScenario; axes: SweepAxis[]; repeat: number; seed?: number | undefined}

/**
 * The sweep a command asks for. An unfinished sweep of the same scenario, grid and repeats (and seed, when one
 * is given) is resumed: a rerun of an interrupted sweep runs only the cells without a complete run. Otherwise a
 * new folder `<stateDir>/sweeps/<time>-<scenario>/` gets the plan, with the seed given or a fresh one.
 */
export async function openSweep(stateDir: string, request: SweepRequest): Promise<OpenedSweep> {
  // Compared as plan.json keeps them (JSON drops what is undefined).
  const scenario = JSON.parse(JSON.stringify(request.scenario)) as ResolvedScenario
  const same = (plan: SweepPlan) =>
    isDeepStrictEqual(plan.scenario, scenario) && isDeepStrictEqual(plan.axes, request.axes) && plan.repeat === request.repeat && (request.seed === undefined || plan.seed === request.seed)
  for (const sweep of await keptSweeps(stateDir)) {
    if (same(sweep.plan) && (await pendingCells(stateDir, sweep)).length > 0) return {...sweep, resumed: true}
  }
  const seed = request.seed ?? randomSeed()
  const plan: SweepPlan = {version: 1, scenario: request.scenario, axes: request.axes, repeat: request.repeat, seed, cells: planCells(request.scenario, request.axes, request.repeat, seed), createdAt: new Date().toISOString()}
  const stamp = path.basename(runFolder(stateDir, request.scenario.name))
  // Two sweeps started in one second get folders of their own.
  let id = stamp
  for (let copy = 2; existsSync(path.join(sweepsDirOf(stateDir), id)); copy++) id = `${stamp}-${copy}`
  const dir = path.join(sweepsDirOf(stateDir), id)
  await mkdir(dir, {recursive: true})
  await writeFile(path.join(dir, 'plan.json'), `${JSON.stringify(plan, null, 2)}\n`)
  return {id, dir, plan, resumed: false}
}

/** `devnet sweep --resume`: the newest sweep in the state dir, whatever it swept. */
export async function latestSweep(stateDir: string): Promise<OpenedSweep> {
  const [latest] = await keptSweeps(stateDir)
  if (!latest) throw new InvalidInputError(`--resume: no sweep in ${sweepsDirOf(stateDir)} (start one with \`gensyn devnet sweep --scenario NAME --set path=v1,v2\`)`)
  return {...latest, resumed: true}
}

/** The cells of a sweep without a complete run folder (a report that is not partial, and run.json's end time). */
export async function pendingCells(stateDir: string, sweep: Pick<OpenedSweep, 'id' | 'plan'>): Promise<SweepCell[]> {
  const complete = await Promise.all(sweep.plan.cells.map((cell) => isCellComplete(cellPaths(stateDir, sweep.id, cell.id).runDir)))
  return sweep.plan.cells.filter((_, index) => !complete[index])
}

async function isCellComplete(runDir: string): Promise<boolean> {
  const run = await readRun(runDir)
  return run.report !== undefined && !run.report.partial && typeof run.record?.endedAt === 'string'
}

/** Every sweep folder with a plan, newest first (folder names start with their UTC start time). */
async function keptSweeps(stateDir: string): Promise<Omit<OpenedSweep, 'resumed'>[]> {
  const names = await readdir(sweepsDirOf(stateDir)).catch(() => [] as string[])
  const sweeps: Omit<OpenedSweep, 'resumed'>[] = []
  for (const id of names.sort().reverse()) {
    const dir = path.join(sweepsDirOf(stateDir), id)
    const plan = await readFile(path.join(dir, 'plan.json'), 'utf8').then(
      (text) => JSON.parse(text) as SweepPlan,
      () => undefined,
    )
    if (plan?.version === 1) sweeps.push({id, dir, plan})
  }
  return sweeps
}
