import type {Hex} from 'viem'
import {sha256Hex} from '../../store/sha256.js'
import type {JobSpec} from '../spec/schema.js'
import {DataInputError} from './errors.js'
import {loadMnistRaw} from './loadMnist.js'

/**
 * Identity of the training data a job uses: sha256 over the exact bytes training reads, namely the
 * raw uint8 pixels of the first `dataset.trainLimit` training images (row-major 28x28 each, as in the
 * IDX file, without its header) followed by their `trainLimit` label bytes. The test split only feeds
 * evaluation, not the proof, so it is not included. A private job's data is the mapped data set its spec
 * names (docs/privacy.md): its blob hash, which covers both splits. A job on its own data: the published data
 * set's blob hash (`dataset.data`, both splits in canonical bytes, docs/job-spec.md).
 */
export function datasetHash(spec: Pick<JobSpec, 'dataset' | 'privacy'>): Hex {
  if (spec.privacy?.data !== undefined) return spec.privacy.data as Hex
  if ('source' in spec.dataset) {
    if (spec.dataset.data === undefined) throw new DataInputError('dataset.data: expected the hash of the published data set (gensyn submit sets it)')
    return spec.dataset.data as Hex
  }
  const raw = loadMnistRaw({split: 'train', limit: spec.dataset.trainLimit})
  return sha256Hex(raw.pixels, raw.labels)
}
