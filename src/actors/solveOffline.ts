import {mkdir, readFile, rename, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'

import type {Hex} from 'viem'

import {type BackendChoice, runtimeIdString, selectBackend} from '../ml/backend/index.js'
import {loadLocalJob} from '../ml/data/loadLocalJob.js'
import {specHash} from '../ml/spec/index.js'
import {cheat, type StrategyName} from '../adversary/index.js'
import {TrainingAbortedError, trainJob, type TrainResult} from '../ml/train/index.js'
import {writeBundle} from '../pol/bundle/index.js'
import {BaseError} from '../errors/base.js'
import {createLocalStore} from '../store/index.js'
import {unmappedDataNotice} from '../privacy/unmappedDataNotice.js'

export type SolveOfflineOptions = {
  jobPath: string
  outDir: string
  backend: BackendChoice
  /** An adversary strategy (docs/adversaries.md); `honest` (the default) trains for real. */
  strategy?: StrategyName | undefined
  signal?: AbortSignal | undefined
  onReady?: (runtime: string) => void
  /** A line the user should see before training starts (a private job file trains on raw data here). */
  onWarning?: (message: string) => void
  onStep?: (step: number, steps: number, loss: number) => void
}

export type OfflineSolveResult = {
  dir: string
  files: number
  checkpoints: number
  merkleRoot: Hex
  runtime: string
  trainingSeconds: number
  /** What the bundle does not stand for (the lines `onWarning` was given). */
  warnings: string[]
}

/**
 * Trains a job with no chain and writes a self-describing proof bundle. Checkpoints are stored as they are
 * made in `<out>.store/` (a content-addressed store beside the bundle, removed once the bundle is written),
 * so an interrupted run loses only the steps since its last checkpoint: the same command carries on.
 */
export async function solveOffline(options: SolveOfflineOptions): Promise<OfflineSolveResult> {
  const spec = await loadLocalJob(options.jobPath)
  const warnings: string[] = []
  const unmapped = unmappedDataNotice(spec, 'the bundle is no proof for a private task, whose solvers train on the mapped data')
  if (unmapped) {
    warnings.push(unmapped)
    options.onWarning?.(unmapped)
  }
  const runtime = await selectBackend(options.backend)
  options.onReady?.(runtimeIdString(runtime))
  const storeDir = `${path.resolve(options.outDir)}.store`
  if (options.strategy && options.strategy !== 'honest') {
    const faked = await cheat({strategy: options.strategy, spec, store: createLocalStore(storeDir), backend: options.backend, signal: options.signal})
    return finish(faked)
  }
  const store = createLocalStore(storeDir)
  const progressFile = path.join(storeDir, 'progress.json')
  const done = await readProgress(progressFile, specHash(spec), runtimeIdString(runtime))
  const last = done.at(-1)
  let result: Awaited<ReturnType<typeof trainJob>>
  try {
    result = await trainJob({
      spec,
      store,
      backend: options.backend,
      signal: options.signal,
      resume: last ? {...last, checkpoints: [...done]} : undefined,
      onStep: (step, loss) => options.onStep?.(step, spec.training.steps, loss),
      onCheckpoint: async (checkpoint) => {
        if (!done.some((known) => known.step === checkpoint.step)) done.push(checkpoint)
        await writeProgress(progressFile, {specHash: specHash(spec), runtime: runtimeIdString(runtime), checkpoints: done})
      },
    })
  } catch (error) {
    if (error instanceof TrainingAbortedError) throw new BaseError(`interrupted at step ${error.step}: no bundle written yet; run the same command to carry on`, {exitCode: 130})
    throw error
  }
  return finish(result)

  async function finish(result: TrainResult): Promise<OfflineSolveResult> {
    const {dir, files} = await writeBundle({spec, store: createLocalStore(storeDir), manifest: result.manifest, outDir: options.outDir})
    await rm(storeDir, {recursive: true, force: true})
    return {
      dir,
      files: files.length,
      checkpoints: result.checkpoints.length,
      merkleRoot: result.proofRoot,
      runtime: runtimeIdString(result.runtime),
      trainingSeconds: result.seconds,
      warnings,
    }
  }
}

type Progress = {specHash: Hex; runtime: string; checkpoints: {step: number; hash: Hex}[]}

/** Checkpoints an earlier, interrupted run of the same job on the same runtime already stored. */
async function readProgress(file: string, spec: Hex, runtime: string): Promise<{step: number; hash: Hex}[]> {
  try {
    const progress = JSON.parse(await readFile(file, 'utf8')) as Progress
    return progress.specHash === spec && progress.runtime === runtime ? progress.checkpoints : []
  } catch {
    return []
  }
}

async function writeProgress(file: string, progress: Progress): Promise<void> {
  await mkdir(path.dirname(file), {recursive: true})
  await writeFile(`${file}.tmp`, JSON.stringify(progress))
  await rename(`${file}.tmp`, file)
}
