export {describeSpread} from './describeSpread.js'
export {raiseToSpread} from './raiseToSpread.js'
export {defaultSpreadRule, segmentSpread, spreadBackends, type SegmentSpread, type SegmentSpreadParameters, type SpreadBackend, type SpreadRule} from './segmentSpread.js'
