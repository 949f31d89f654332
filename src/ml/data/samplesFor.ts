import type {Hex} from 'viem'
import type {JobSpec} from '../spec/schema.js'
import {loadMnist, type Mnist, type MnistSplit} from './loadMnist.js'
import {mappedDataset} from './mappedDataset.js'

/**
 * The samples a job trains (`train`) or is scored on (`test`): for a private job the mapped data set its
 * spec names (docs/privacy.md), never raw MNIST; otherwise the first `trainLimit` / `testLimit` MNIST samples.
 */
export function samplesFor(spec: Pick<JobSpec, 'dataset' | 'privacy'>, split: MnistSplit): Mnist {
  const data = spec.privacy?.data
  if (data !== undefined) return mappedDataset(data as Hex)[split]
  return loadMnist({split, limit: split === 'train' ? spec.dataset.trainLimit : spec.dataset.testLimit})
}
