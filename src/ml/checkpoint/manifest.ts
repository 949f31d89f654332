import type {Hex} from 'viem'
import {z} from 'zod'
import type {RuntimeId} from '../backend/runtimeId.js'

const hash = z.string().regex(/^0x[0-9a-f]{64}$/, {error: 'expected 0x followed by 64 lowercase hex digits'})

export const runtimeIdSchema = z.strictObject({
  backend: z.enum(['wasm', 'cpu', 'webgpu', 'gpu']),
  tfjs: z.string().min(1),
  kernels: z.string().min(1),
  wasmVariant: z.enum(['simd', 'simd-threaded', 'scalar']).optional(),
  node: z.string().min(1).optional(),
  adapter: z.strictObject({vendor: z.string(), architecture: z.string(), device: z.string(), description: z.string()}).optional(),
  dawn: z.string().min(1).optional(),
})

export const proofManifestSchema = z.strictObject({
  version: z.literal(1),
  specHash: hash,
  datasetHash: hash,
  runtime: runtimeIdSchema,
  checkpointInterval: z.number().int().positive(),
  checkpoints: z.array(z.strictObject({step: z.number().int().min(0), hash})).min(2),
  merkleRoot: hash,
})

/**
 * The proof of learning a solver publishes (as a canonical-JSON blob; its hash is the on-chain
 * `manifestHash`): which job (specHash) on which data (datasetHash) on which runtime, and the checkpoint
 * hashes in step order with their Merkle root (the on-chain `proofRoot`).
 */
export type ProofManifest = {
  version: 1
  specHash: Hex
  datasetHash: Hex
  runtime: RuntimeId
  checkpointInterval: number
  checkpoints: {step: number; hash: Hex}[]
  merkleRoot: Hex
}
