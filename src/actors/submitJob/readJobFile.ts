import path from 'node:path'

import {InvalidInputError} from '../../errors/base.js'
import {prepareLocalData} from '../../ml/data/publishedDataset.js'
import {prepareGivenWeights} from '../../ml/model/givenWeights.js'
import {type JobSpec, loadJobSpec} from '../../ml/spec/index.js'
import {resolveFixturePath} from '../../ml/spec/resolveFixturePath.js'
import type {SubmitJobOptions} from './types.js'

/**
 * Reads and checks a job file, before anything is published or escrowed (in a dry run too): the fields gensyn
 * submit sets itself must be absent, and the job's own data and given weights must read. `baseDir` is where
 * its relative paths start.
 */
export async function readJobFile(options: Pick<SubmitJobOptions, 'jobPath' | 'segments'>): Promise<{spec: JobSpec; baseDir: string}> {
  const loaded = await loadJobSpec(options.jobPath)
  const spec: JobSpec = options.segments === undefined ? loaded : {...loaded, verification: {...loaded.verification, segments: options.segments}}
  if (spec.privacy?.data !== undefined)
    throw new InvalidInputError(`${options.jobPath}: privacy.data: expected it absent in a job file (gensyn submit sets it to the mapped data set it stores)`)
  for (const field of ['shard', 'start'] as const)
    if (spec.split?.[field] !== undefined)
      throw new InvalidInputError(`${options.jobPath}: split.${field}: expected it absent in a job file (gensyn submit sets it on each task of a parallel split)`)
  if ('source' in spec.dataset && spec.dataset.data !== undefined)
    throw new InvalidInputError(`${options.jobPath}: dataset.data: expected it absent in a job file (gensyn submit sets it to the data set it publishes)`)
  const baseDir = path.dirname(path.resolve(resolveFixturePath('jobs', options.jobPath)))
  // the job's own data is read and checked before anything is published or escrowed, in a dry run too
  if ('source' in spec.dataset) await prepareLocalData(spec, {baseDir})
  if (spec.model.initialWeights?.data !== undefined)
    throw new InvalidInputError(`${options.jobPath}: model.initialWeights.data: expected it absent in a job file (gensyn submit sets it to the weights it publishes)`)
  if (spec.model.initialWeights) await prepareGivenWeights(spec, {baseDir})
  return {spec, baseDir}
}
