import type {Hex} from 'viem'

import type {JobSpec} from '../spec/schema.js'
import {DataInputError} from './errors.js'
import {loadMnist, type MnistSplit} from './loadMnist.js'
import {mappedDataset} from './mappedDataset.js'
import {publishedDataset} from './publishedDataset.js'
import {type Samples, samplesFromMnist, shardSamples} from './samples.js'

/**
 * The samples a job trains (`train`) or is scored on (`test`): a private job's mapped data set (docs/privacy.md),
 * never raw MNIST; a job on its own data, the published data set its spec names (`dataset.data`, fetched by
 * loadTaskSpec or registered by the submitter); otherwise the first `trainLimit` / `testLimit` MNIST samples. A
 * parallel split's task (`split.shard` of `split.shards`) trains on its shard of the training split only.
 */
export function samplesFor(spec: Pick<JobSpec, 'dataset' | 'privacy' | 'split'>, split: MnistSplit): Samples {
  const samples = unshardedSamples(spec, split)
  const shards = spec.split?.shards
  const shard = spec.split?.shard
  return split === 'train' && shards !== undefined && shard !== undefined ? shardSamples(samples, shard, shards) : samples
}

function unshardedSamples(spec: Pick<JobSpec, 'dataset' | 'privacy'>, split: MnistSplit): Samples {
  const mapped = spec.privacy?.data
  if (mapped !== undefined) return samplesFromMnist(mappedDataset(mapped as Hex)[split])
  const {dataset} = spec
  if ('name' in dataset) return samplesFromMnist(loadMnist({split, limit: split === 'train' ? dataset.trainLimit : dataset.testLimit}))
  if (dataset.data === undefined) throw new DataInputError('dataset.data: expected the hash of the published data set (gensyn submit sets it)')
  return publishedDataset(dataset.data as Hex)[split]
}
