// Cheating solver strategies (docs/adversaries.md): proofs made like trainJob's, each faked in its own way.
export {cheat, type CheatParameters, type CheatResult} from './cheat.js'
export {copySourceSeed} from './copyProof.js'
export {AdversaryInputError} from './errors.js'
export {forgedSegments} from './forge.js'
export {noiseAmplitude, noisedCheckpoints} from './noise.js'
export {
  describeStrategy,
  isStrategyName,
  parseStrategyName,
  strategyNames,
  type CatchingCheck,
  type StrategyDescription,
  type StrategyName,
} from './strategies.js'
export {wrongDataShare, wrongDataSize} from './wrongData.js'
export {forcedErrorAmplitude, forcedErrorProof, type ForcedErrorProof} from './forcedError.js'
export {
  describeVerifierStrategy,
  isVerifierStrategyName,
  parseVerifierStrategyName,
  skipsReplay,
  uncheckedReport,
  verifierStrategyNames,
  type UncheckedReport,
  type VerifierStrategyDescription,
  type VerifierStrategyName,
} from './verifierStrategies.js'
