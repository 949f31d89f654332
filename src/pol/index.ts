export {ReplayError, RuntimeMismatchError} from './errors.js'
export {proofManifestSchema, runtimeIdSchema, type ProofManifest} from './manifest.js'
export {merkleLeaf, merkleNode, merkleProof, merkleRoot, MerkleError, verifyMerkleProof} from './merkle.js'
export {replaySegment, type SegmentReplay} from './replaySegment.js'
export {SegmentSelectionError, selectSegments} from './selectSegments.js'
export {
  verifyProof,
  type CheckStatus,
  type VerificationChecks,
  type VerificationReport,
  type VerifyProofParameters,
} from './verifyProof.js'
