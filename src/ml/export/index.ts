export {exportModel, type ExportResult} from './exportModel.js'
