export {canonicalSpecBytes} from './canonicalSpecBytes.js'
export {JobSpecError} from './errors.js'
export {formatIssue, formatPath} from './formatIssue.js'
export {loadJobSpec} from './loadJobSpec.js'
export {parseJobSpec} from './parseJobSpec.js'
export {maxPriceWei} from './maxPriceWei.js'
export {
  activations,
  jobSpecSchema,
  layerSchema,
  layerTypes,
  maxPinnedProfiles,
  optimizerSchema,
  privacyMappings,
  type JobSpec,
  type JobSpecInput,
  type LayerSpec,
  type ModelSpec,
  type OptimizerSpec,
  type PrivacyMapping,
  type PrivacySpec,
} from './schema.js'
export {specHash} from './specHash.js'
export {roundTaskSpecs, splitTaskSpecs} from './splitTaskSpecs.js'
