import {readFile, realpath, stat} from 'node:fs/promises'
import path from 'node:path'

import type {Hex} from 'viem'

import {decodeCheckpoint} from '../../ml/checkpoint/index.js'
import {decodeDataset} from '../../ml/data/datasetBlob.js'
import {registerDataset} from '../../ml/data/publishedDataset.js'
import {sha256Hex} from '../../store/sha256.js'
import {jobSpecSchema, type JobSpec} from '../../ml/spec/index.js'
import {formatPath} from '../../ml/spec/index.js'
import type {BlobStore} from '../../store/types.js'
import type {ProofManifest} from '../manifest.js'
import {type BundleManifest, bundleManifestSchema, bundleType} from './bundleSchema.js'
import {createBundleStore} from './createBundleStore.js'
import {BundleError} from './errors.js'

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
 * Opens a proof bundle and checks that it is usable as one: proof.json is there, of the right type and
 * shape; every file it names lies inside the bundle and exists; the spec is a valid job spec; every
 * checkpoint decodes. Anything else wrong with the proof (a hash that does not match, a wrong root, a
 * replay that differs) is for verification to find, not an unusable bundle.
 *
 * @throws BundleError (exit code 2) when the bundle cannot be used
 */
export async function readBundle(bundleDir: string): Promise<Bundle> {
  const dir = path.resolve(bundleDir)
  if (!(await isDirectory(dir))) throw new BundleError(`bundle not found: ${bundleDir} is not a folder`)
  const root = await realpath(dir)

  const raw = await readText(root, 'proof.json', 'proof.json')
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch (error) {
    throw new BundleError(`proof.json: malformed JSON: ${(error as Error).message}`)
  }
  const type = (json as {type?: unknown} | null)?.type
  if (type !== bundleType) throw new BundleError(`proof.json: type: expected "${bundleType}", got ${JSON.stringify(type)}`)
  const parsed = bundleManifestSchema.safeParse(json)
  if (!parsed.success) {
    const [issue] = parsed.error.issues
    throw new BundleError(`proof.json: ${formatPath(issue?.path ?? [])}: ${issue?.message ?? 'invalid'}`, {details: parsed.error.message})
  }
  const bundle = parsed.data

  const files = new Map<Hex, string>()
  const specPath = await insideBundle(root, bundle.spec.file, 'spec.file')
  const spec = parseSpec(await readText(root, bundle.spec.file, 'spec.file'), bundle.spec.file)
  files.set(bundle.spec.sha256 as Hex, specPath)
  for (const [index, checkpoint] of bundle.checkpoints.entries()) {
    const field = `checkpoints[${index}].file`
    const file = await insideBundle(root, checkpoint.file, field)
    const bytes = await readBytes(file, checkpoint.file, field)
    try {
      decodeCheckpoint(bytes)
    } catch (error) {
      throw new BundleError(`${field}: ${checkpoint.file} is truncated or malformed: ${(error as Error).message.split('\n')[0]}`)
    }
    files.set(checkpoint.sha256 as Hex, file)
  }

  if (bundle.data) {
    const file = await insideBundle(root, bundle.data.file, 'data.file')
    const bytes = await readBytes(file, bundle.data.file, 'data.file')
    if (sha256Hex(bytes) !== bundle.data.sha256) throw new BundleError(`proof.json: data.file: ${bundle.data.file} does not hash to ${bundle.data.sha256}`)
    try {
      registerDataset(bundle.data.sha256 as Hex, decodeDataset(bytes))
    } catch (error) {
      throw new BundleError(`data.file: ${bundle.data.file} is not a data set: ${(error as Error).message.split('\n')[0]}`)
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

/** Resolves `file` against the bundle root, refusing absolute paths and any that leave the root (symlinks included). */
async function insideBundle(root: string, file: string, field: string): Promise<string> {
  const outside = () => new BundleError(`proof.json: ${field}: expected a path inside the bundle, got ${JSON.stringify(file)}`)
  if (path.isAbsolute(file) || file.includes('\\') || file.includes('\0')) throw outside()
  const resolved = path.resolve(root, file)
  if (!resolved.startsWith(root + path.sep)) throw outside()
  let real: string
  try {
    real = await realpath(resolved)
  } catch {
    throw new BundleError(`proof.json: ${field}: ${file} is missing from the bundle`)
  }
  if (!real.startsWith(root + path.sep)) throw outside()
  return real
}

async function readBytes(file: string, name: string, field: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(file))
  } catch {
    throw new BundleError(`proof.json: ${field}: ${name} cannot be read`)
  }
}

async function readText(root: string, file: string, field: string): Promise<string> {
  const resolved = field === 'proof.json' ? path.join(root, file) : await insideBundle(root, file, field)
  try {
    return await readFile(resolved, 'utf8')
  } catch {
    throw new BundleError(field === 'proof.json' ? `bundle ${root}: proof.json is missing` : `proof.json: ${field}: ${file} cannot be read`)
  }
}

function parseSpec(text: string, file: string): JobSpec {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    throw new BundleError(`${file}: malformed JSON: ${(error as Error).message}`)
  }
  const parsed = jobSpecSchema.safeParse(raw)
  if (!parsed.success) {
    const [issue] = parsed.error.issues
    throw new BundleError(`${file}: ${formatPath(issue?.path ?? [])}: ${issue?.message ?? 'not a job spec'}`, {details: parsed.error.message})
  }
  return parsed.data
}
