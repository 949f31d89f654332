import {publishDataset} from '../../ml/data/publishedDataset.js'
import {prepareGivenWeights} from '../../ml/model/givenWeights.js'
import type {JobSpec} from '../../ml/spec/index.js'
import type {SignedConnection} from '../../protocol/connect.js'
import {pinPostedProfiles} from '../../protocol/pinPostedProfiles.js'
import type {SubmitJobOptions, SubmitJobResult} from './types.js'

/**
 * Puts what the job's tasks name into the spec: the profiles it pins (`thresholdsFrom`), its own data set
 * published to the store, and its given initial weights. Returns the spec its tasks are posted with.
 */
export async function publishJobInputs(
  connection: SignedConnection,
  spec: JobSpec,
  baseDir: string,
  options: Pick<SubmitJobOptions, 'thresholdsFrom' | 'onData'>,
): Promise<{spec: JobSpec; dataset: SubmitJobResult['dataset']}> {
  let dataset: SubmitJobResult['dataset']
  if (options.thresholdsFrom?.length) spec = (await pinPostedProfiles(connection, {spec, posters: options.thresholdsFrom})).spec
  if ('source' in spec.dataset) {
    const published = await publishDataset(spec, {baseDir, store: connection.store})
    spec = published.spec
    options.onData?.({data: published.data, bytes: published.bytes})
    dataset = {data: published.data, bytes: published.bytes}
  }
  if (spec.model.initialWeights) spec = await prepareGivenWeights(spec, {baseDir, store: connection.store})
  return {spec, dataset}
}
