export {checkpointModel, exportModel, setWeightsInLayerOrder, type ExportResult, type InputLayers} from './exportModel.js'
