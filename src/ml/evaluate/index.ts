export {evaluateCheckpoint, type Evaluation} from './evaluateCheckpoint.js'
