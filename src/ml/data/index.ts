export {datasetHash} from './datasetHash.js'
export {DatasetError, loadMnist, loadMnistRaw, mnistDir, type Mnist, type MnistRaw, type MnistSplit} from './loadMnist.js'
