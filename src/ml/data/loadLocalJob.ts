import path from 'node:path'

import {prepareGivenWeights} from '../model/givenWeights.js'
import {loadJobSpec} from '../spec/loadJobSpec.js'
import {resolveFixturePath} from '../spec/resolveFixturePath.js'
import type {JobSpec} from '../spec/schema.js'
import {prepareLocalData} from './publishedDataset.js'

/**
 * A job file for the offline paths (solve --job, profile --job, verify --job): the validated spec, with a job's
 * own data read from beside the job file, checked and registered under its hash (`dataset.data` set), and a
 * fine-tuning job's starting weights likewise (`model.initialWeights.data`).
 */
export async function loadLocalJob(jobPath: string): Promise<JobSpec> {
  const loaded = await loadJobSpec(jobPath)
  const baseDir = path.dirname(path.resolve(resolveFixturePath('jobs', jobPath)))
  const spec = (await prepareLocalData(loaded, {baseDir}))?.spec ?? loaded
  return prepareGivenWeights(spec, {baseDir})
}
