export {detectionProbability, missProbability, segmentsForTarget, type DetectionParameters} from './detectionProbability.js'
export {PlanError} from './errors.js'
export {planTable, type PlanRow, type PlanTable} from './planTable.js'
export {segmentsForWeakestCheat, weakestCheatFaked} from './segmentsForWeakestCheat.js'
