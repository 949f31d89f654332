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
