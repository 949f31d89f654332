export {describeSpread} from './describeSpread.js'
export {raiseToSpread} from './raiseToSpread.js'
export {defaultSpreadRule, segmentSpread, type SegmentSpread, type SegmentSpreadParameters, type SpreadRule} from './segmentSpread.js'
