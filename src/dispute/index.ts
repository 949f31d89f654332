export {arbitrationPayload, firstDivergence, isDecidableOnchain, type ArbitrationPayload, type Operation} from './arbitration.js'
export {
  attrsJson,
  canonicalNaNBits,
  canonicalTensorBytes,
  commitmentChain,
  descriptorAttrs,
  descriptorHash,
  dtypeBytes,
  finalClaim,
  float32Bits,
  graphHash,
  initialCommitment,
  nextCommitment,
  nextGraphHash,
  onchainKernels,
  outputHash,
  zeroHash,
} from './encoding.js'
export {DisputeTraceError, OperatorCorruptionError} from './errors.js'
export {segmentStateHashes, stateAtStep, type SegmentParameters} from './stateHashes.js'
export {assembleTrace, traceStep, type TraceStepParameters} from './traceStep.js'
export type {OperatorCorruption, OperatorDescriptor, StepTrace, TraceElement} from './types.js'
// TEST-ONLY adversary: corrupts one operator's output (tests and simulated cheating players only)
export {kernelElement, operatorCorrupter, propagatingCorruption, trainJobWithOperatorCorruption, withOperatorCorruption, type OperatorCorrupter} from './corruptOperator.js'
