import {realpath, stat} from 'node:fs/promises'
import path from 'node:path'

import type {Hex} from 'viem'

import {BaseError} from '../../errors/base.js'
import {decodeCheckpoint} from '../../ml/checkpoint/index.js'
import {decodeDataset} from '../../ml/data/datasetBlob.js'
import {registerDataset} from '../../ml/data/publishedDataset.js'
import {checkWorkLimits} from '../../ml/estimate/checkWorkLimits.js'
import {defaultWorkTable} from '../../ml/estimate/workTable.js'
import {canonicalSpecBytes, formatPath, jobSpecSchema, type JobSpec} from '../../ml/spec/index.js'
import {checkpointSchedule} from '../../ml/train/checkpointSchedule.js'
import {parseCanonicalJson} from '../../store/parseCanonicalJson.js'
import {sha256Hex} from '../../store/sha256.js'
import type {BlobStore} from '../../store/types.js'
import type {ProofManifest} from '../../ml/checkpoint/manifest.js'
import {bundleFileLimits, checkpointBytes} from './bundleLimits.js'
import {type BundleManifest, bundleManifestSchema, bundleType} from './bundleSchema.js'
import {type BundleFile, createBundleStore} from './createBundleStore.js'
import {BundleError} from './errors.js'
import {readBundleFile} from './readBundleFile.js'

export type Bundle = {
  dir: string
  bundle: BundleManifest
  /** The proof manifest the bundle describes, as the on-chain flow stores it. */
  manifest: ProofManifest
  /** Hash of `manifest` in `store` (what a chain would hold as `manifestHash`). */
  manifestHash: Hex
  spec: JobSpec
  /** Reads the bundle's files by their sha256, verifying every read. */
  store: BlobStore
}

/**
 * Opens a proof bundle, read as hostile input (docs/proof-format.md, "Hostile input"), and checks that it is
 * usable as one: proof.json is there, canonical JSON of the right type and shape; every file it names is a
 * regular file inside the bundle, no larger than its limit; the spec is a valid job spec in its canonical bytes,
 * hashing to its claim and within the protocol's work limits; there are no more checkpoints than the spec's
 * schedule has; every checkpoint decodes. Anything else wrong with the proof (a hash that does not match, a
 * wrong root, a replay that differs) is for verification to find, not an unusable bundle.
 *
 * @throws BundleError (exit code 2) when the bundle cannot be used
 */
export async function readBundle(bundleDir: string): Promise<Bundle> {
  const dir = path.resolve(bundleDir)
  if (!(await isDirectory(dir))) throw new BundleError(`bundle not found: ${bundleDir} is not a folder`)
  const root = await realpath(dir)
  const bundleFile = (file: string, field: string, maxBytes: number): BundleFile => ({file, read: () => readBundleFile({root, file, field, maxBytes})})

  const bundle = parseProofJson(await bundleFile('proof.json', 'proof.json', bundleFileLimits.proofJson).read())
  const specFile = bundleFile(bundle.spec.file, 'spec.file', bundleFileLimits.specJson)
  const spec = parseSpec(await specFile.read(), bundle.spec)
  const files = new Map<Hex, BundleFile>([[bundle.spec.sha256 as Hex, specFile]])

  const schedule = checkpointSchedule(spec).length
  if (bundle.checkpoints.length > schedule)
    throw new BundleError(`proof.json: checkpoints: expected at most ${schedule} (the spec's checkpoint schedule), got ${bundle.checkpoints.length}`)
  const maxCheckpointBytes = checkpointBytes(spec)
  for (const [index, checkpoint] of bundle.checkpoints.entries()) {
    const field = `checkpoints[${index}].file`
    const file = bundleFile(checkpoint.file, field, maxCheckpointBytes)
    const bytes = await file.read()
    try {
      decodeCheckpoint(bytes)
    } catch (error) {
      throw new BundleError(`${field}: ${checkpoint.file} is truncated or malformed: ${firstLine(error)}`)
    }
    files.set(checkpoint.sha256 as Hex, file)
  }

  if (bundle.data) {
    const file = bundleFile(bundle.data.file, 'data.file', bundleFileLimits.data)
    const bytes = await file.read()
    if (sha256Hex(bytes) !== bundle.data.sha256) throw new BundleError(`proof.json: data.file: ${bundle.data.file} does not hash to ${bundle.data.sha256}`)
    try {
      registerDataset(bundle.data.sha256 as Hex, decodeDataset(bytes))
    } catch (error) {
      throw new BundleError(`data.file: ${bundle.data.file} is not a data set: ${firstLine(error)}`)
    }
    files.set(bundle.data.sha256 as Hex, file)
  }
  const store = createBundleStore(files)
  const manifest: ProofManifest = {
    version: 1,
    specHash: bundle.specHash as Hex,
    datasetHash: bundle.datasetHash as Hex,
    runtime: bundle.runtime,
    checkpointInterval: bundle.checkpointInterval,
    checkpoints: bundle.checkpoints.map(({step, sha256}) => ({step, hash: sha256 as Hex})),
    merkleRoot: bundle.merkleRoot as Hex,
  }
  const manifestHash = await store.putJson(manifest)
  return {dir, bundle, manifest, manifestHash, spec, store}
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory()
  } catch {
    return false
  }
}

/** The one line a failure reports, whatever threw it. */
function firstLine(error: unknown): string {
  const message = error instanceof BaseError ? error.shortMessage : error instanceof Error ? error.message : String(error)
  return message.split('\n')[0] ?? ''
}

/** Canonical JSON (so no duplicate keys), of the bundle type, in the shape of bundleManifestSchema. */
function parseProofJson(bytes: Uint8Array): BundleManifest {
  let json: unknown
  try {
    json = parseCanonicalJson(bytes, 'proof.json')
  } catch (error) {
    throw new BundleError(firstLine(error), {cause: error})
  }
  const type = (json as {type?: unknown} | null)?.type
  if (type !== bundleType) throw new BundleError(`proof.json: type: expected "${bundleType}", got ${JSON.stringify(type) ?? 'nothing'}`)
  const parsed = bundleManifestSchema.safeParse(json)
  if (!parsed.success) {
    const [issue] = parsed.error.issues
    throw new BundleError(`proof.json: ${formatPath(issue?.path ?? [])}: ${issue?.message ?? 'invalid'}`, {details: parsed.error.message})
  }
  return parsed.data
}

/**
 * The job spec: canonical JSON, a valid job spec whose canonical bytes (defaults filled in) are exactly the
 * file's, hashing to proof.json's `spec.sha256`, and within the protocol's work limits (checkWorkLimits), so
 * every size that later bounds an allocation or a loop (steps, layers, batch, tensor elements) is checked first.
 */
function parseSpec(bytes: Uint8Array, claim: BundleManifest['spec']): JobSpec {
  const {file} = claim
  let raw: unknown
  try {
    raw = parseCanonicalJson(bytes, file)
  } catch (error) {
    throw new BundleError(firstLine(error), {cause: error})
  }
  let parsed: ReturnType<typeof jobSpecSchema.safeParse>
  try {
    parsed = jobSpecSchema.safeParse(raw)
  } catch (error) {
    throw new BundleError(`${file}: not a usable job spec: ${firstLine(error)}`, {cause: error})
  }
  if (!parsed.success) {
    const [issue] = parsed.error.issues
    throw new BundleError(`${file}: ${formatPath(issue?.path ?? [])}: ${issue?.message ?? 'not a job spec'}`, {details: parsed.error.message})
  }
  const spec = parsed.data
  if (sha256Hex(canonicalSpecBytes(spec)) !== sha256Hex(bytes))
    throw new BundleError(`${file}: expected the spec's canonical bytes with its defaults filled in (docs/job-spec.md), got other bytes for the same spec`)
  if (sha256Hex(bytes) !== claim.sha256) throw new BundleError(`proof.json: spec.sha256: expected ${sha256Hex(bytes)} (the hash of ${file}), got ${claim.sha256}`)
  try {
    checkWorkLimits(spec, defaultWorkTable)
  } catch (error) {
    throw new BundleError(`${file}: ${firstLine(error)}`, {cause: error})
  }
  return spec
}
