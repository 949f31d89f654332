export {
  checkThresholdsCover,
  checkpointTensorList,
  DistanceError,
  distanceLimitsSchema,
  distanceMetrics,
  nonFiniteDistance,
  parameterDistances,
  parseThresholds,
  ThresholdsError,
  thresholdsSchema,
  vectorDistances,
  withinThresholds,
  type CheckpointDistances,
  type DecodedCheckpoint,
  type DistanceLimits,
  type DistanceMetric,
  type Distances,
  type TensorDistances,
  type Thresholds,
} from './distances/index.js'
export {ReplayError, RuntimeMismatchError} from './errors.js'
export {defaultSpreadRule, describeSpread, raiseToSpread, segmentSpread, type SegmentSpread, type SegmentSpreadParameters, type SpreadRule} from './sensitivity/index.js'
export {finalCheckpointOf} from './finalCheckpointOf.js'
export {stackedProof, type StackedProof} from './stackedProof.js'
export {proofManifestSchema, runtimeIdSchema, type ProofManifest} from '../ml/checkpoint/manifest.js'
export {merkleLeaf, merkleNode, merkleProof, merkleRoot, MerkleError, verifyMerkleProof} from '../ml/checkpoint/merkle.js'
export {detectionProbability, missProbability, PlanError, segmentsForTarget, type DetectionParameters} from '../plan/index.js'
export {
  addMagnitudes,
  checkRule,
  defaultFloorRelative,
  defaultSafetyFactor,
  deriveThresholds,
  ProfileError,
  profileJob,
  recommendedReplays,
  smallProfileNotice,
  spreadSegments,
  type DerivedThresholds,
  type Magnitudes,
  type ProfileJobParameters,
  type ProfileProgress,
  type ProfileResult,
  type ProfileSample,
  type ReferenceMagnitudes,
} from './profile/index.js'
export {
  checkpointTensorNames,
  counterDifferences,
  replaySegment,
  judgeTolerance,
  spreadRuleOf,
  verificationModes,
  type ReplaySegmentParameters,
  type SegmentReplay,
  type ToleranceJudgement,
  type VerificationMode,
} from './replaySegment.js'
export {
  defaultTopQ,
  samplingStrategies,
  SegmentSelectionError,
  selectSegments,
  type SamplingStrategy,
  type SelectSegmentsParameters,
} from './selectSegments.js'
export {committedUpdateNorms, updateNorm} from './updateNorms.js'
export {
  verifyProof,
  type CheckStatus,
  type Sampling,
  type VerificationChecks,
  type VerificationReport,
  type VerifyProofParameters,
} from './verifyProof.js'
