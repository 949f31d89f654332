export {DistanceError, ThresholdsError} from './errors.js'
export {
  checkpointTensorList,
  nonFiniteDistance,
  parameterDistances,
  vectorDistances,
  type CheckpointDistances,
  type DecodedCheckpoint,
  type Distances,
  type TensorDistances,
} from './parameterDistances.js'
export {
  checkThresholdsCover,
  distanceLimitsSchema,
  distanceMetrics,
  parseThresholds,
  thresholdsSchema,
  withinThresholds,
  type DistanceLimits,
  type DistanceMetric,
  type Thresholds,
} from './thresholds.js'
