export {datasetHash} from './datasetHash.js'
export {DatasetError, loadMnist, loadMnistRaw, mnistDir, type Mnist, type MnistRaw, type MnistSplit} from './loadMnist.js'
export {
  decodeMappedDataset,
  encodeMappedDataset,
  fetchMappedDataset,
  mappedDataset,
  mappedDatasetHash,
  registerMappedDataset,
  type MappedDataset,
} from './mappedDataset.js'
export {samplesFor} from './samplesFor.js'
export {buildDataset, formatOf} from './buildDataset.js'
export type {Dataset, Normalization} from './dataset.js'
export {decodeDataset, encodeDataset} from './datasetBlob.js'
export {DataInputError} from './errors.js'
export {checkDataFitsModel, fetchDataset, publishDataset, publishedDataset, registerDataset, type PublishedDataset} from './publishedDataset.js'
export {firstSamples, samplesFromMnist, targetSize, writeTarget, type DataTask, type Samples} from './samples.js'
