import {z} from 'zod'

import {runtimeIdSchema} from '../../ml/checkpoint/manifest.js'

const hash = z.string().regex(/^0x[0-9a-f]{64}$/, {error: 'expected 0x followed by 64 lowercase hex digits'})
/** A path relative to the bundle root, in POSIX form; readBundle also rejects any that escapes the root. */
const relativeFile = z.string().min(1).max(255)

export const bundleType = 'gensyn-proof-bundle' as const
export const bundleVersion = 1 as const

/** `proof.json`: the manifest of a proof bundle (docs/proof-format.md). */
export const bundleManifestSchema = z.strictObject({
  type: z.literal(bundleType),
  version: z.literal(bundleVersion),
  spec: z.strictObject({file: relativeFile, sha256: hash}),
  specHash: hash,
  datasetHash: hash,
  runtime: runtimeIdSchema,
  checkpointInterval: z.number().int().positive(),
  checkpoints: z.array(z.strictObject({step: z.number().int().min(0), file: relativeFile, sha256: hash})).min(2),
  merkleRoot: hash,
  /** A job on its own data: the published data set's canonical bytes (docs/job-spec.md), so a verifier needs no store. */
  data: z.strictObject({file: relativeFile, sha256: hash}).optional(),
})

export type BundleManifest = z.infer<typeof bundleManifestSchema>
