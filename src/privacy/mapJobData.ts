import type {Hex} from 'viem'
import {loadMnist} from '../ml/data/loadMnist.js'
import type {MappedDataset} from '../ml/data/mappedDataset.js'
import type {JobSpec, PrivacyMapping} from '../ml/spec/schema.js'
import {applyMapping} from './mappingLayers.js'
import {featureCount, mappingStages} from './mappingStages.js'

/**
 * The data set a private job publishes: its raw training and test samples (the first `trainLimit` and
 * `testLimit` of MNIST, which only the submitter reads) through the keyed mapping, labels unchanged.
 */
export function mapJobData(spec: Pick<JobSpec, 'dataset'>, mapping: PrivacyMapping, key: Hex): MappedDataset {
  const stages = mappingStages(mapping, key)
  return {
    mapping,
    features: featureCount,
    train: applyMapping(stages, loadMnist({split: 'train', limit: spec.dataset.trainLimit})),
    test: applyMapping(stages, loadMnist({split: 'test', limit: spec.dataset.testLimit})),
  }
}
