export {checkpointModel, exportModel, setWeightsInLayerOrder, type ExportResult, type InputLayers} from './exportModel.js'
export {exportWeights, type ModelCard} from './exportWeights.js'
export {decodeSafetensors, encodeSafetensors, SafetensorsError} from './safetensors.js'
