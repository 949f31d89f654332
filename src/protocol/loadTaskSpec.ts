import type {Hex} from 'viem'
import {InvalidInputError} from '../errors/base.js'
import {fetchMappedDataset} from '../ml/data/mappedDataset.js'
import {fetchDataset} from '../ml/data/publishedDataset.js'
import {fetchGivenWeights} from '../ml/model/givenWeights.js'
import {jobSpecSchema, type JobSpec, specHash} from '../ml/spec/index.js'
import type {Connection} from './connect.js'
import type {Task} from './types.js'

/**
 * Fetches a task's spec from the blob store (hash-checked on read) and re-validates it. A private task's
 * mapped data set (docs/privacy.md), or a job's own published data set (`dataset.data`), is fetched too (the
 * store checks its hash), so training, replays and scoring can read it.
 */
export async function loadTaskSpec(connection: Pick<Connection, 'store'>, task: Pick<Task, 'id' | 'specHash'>): Promise<JobSpec> {
  const bytes = await connection.store.get(task.specHash)
  const parsed = jobSpecSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)))
  if (!parsed.success) throw new InvalidInputError(`task ${task.id}: its spec ${task.specHash} is not a valid job spec`, {details: parsed.error.message})
  if (specHash(parsed.data) !== task.specHash) throw new InvalidInputError(`task ${task.id}: its spec does not re-hash to ${task.specHash}`)
  const mapped = parsed.data.privacy?.data
  if (parsed.data.privacy && mapped === undefined)
    throw new InvalidInputError(`task ${task.id}: its spec is private but names no mapped data set (privacy.data)`, {docsPath: 'privacy.md'})
  if (mapped !== undefined) await fetchMappedDataset(connection.store, mapped as Hex)
  const {dataset} = parsed.data
  if ('source' in dataset) {
    if (dataset.data === undefined) throw new InvalidInputError(`task ${task.id}: its spec names no published data set (dataset.data)`, {docsPath: 'job-spec.md'})
    await fetchDataset(connection.store, dataset.data as Hex)
  }
  const initial = parsed.data.model.initialWeights
  if (initial) {
    if (initial.data === undefined) throw new InvalidInputError(`task ${task.id}: its spec names no published initial weights (model.initialWeights.data)`, {docsPath: 'job-spec.md'})
    await fetchGivenWeights(connection.store, initial.data as Hex)
  }
  return parsed.data
}
