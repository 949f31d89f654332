export {
  addMagnitudes,
  checkRule,
  defaultFloorRelative,
  defaultSafetyFactor,
  deriveThresholds,
  type DerivedThresholds,
  type Magnitudes,
  type ReferenceMagnitudes,
} from './deriveThresholds.js'
export {ProfileError} from './errors.js'
export {
  profileJob,
  spreadSegments,
  type ProfileJobParameters,
  type ProfileProgress,
  type ProfileResult,
  type ProfileSample,
} from './profileJob.js'
export {recommendedReplays, smallProfileNotice} from './smallProfileNotice.js'
