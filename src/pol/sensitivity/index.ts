export {raiseToSpread} from './raiseToSpread.js'
export {defaultSensitivity, segmentSpread, type SegmentSpread, type SegmentSpreadParameters, type Sensitivity} from './segmentSpread.js'
