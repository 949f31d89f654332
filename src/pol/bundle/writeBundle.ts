import {mkdir, rename, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'

import type {Hex} from 'viem'

import {encodeDataset} from '../../ml/data/datasetBlob.js'
import {publishedDataset} from '../../ml/data/publishedDataset.js'
import {canonicalSpecBytes, type JobSpec} from '../../ml/spec/index.js'
import {canonicalJson} from '../../store/canonicalJson.js'
import type {BlobStore} from '../../store/types.js'
import type {ProofManifest} from '../../ml/checkpoint/manifest.js'
import {type BundleManifest, bundleType, bundleVersion} from './bundleSchema.js'

export type WriteBundleParameters = {spec: JobSpec; store: BlobStore; manifest: ProofManifest; outDir: string}

export const checkpointFileName = (step: number): string => `checkpoints/step-${String(step).padStart(8, '0')}.ckpt`

/**
 * Writes a self-describing proof bundle (docs/proof-format.md): `proof.json`, the job spec's canonical
 * bytes in `spec.json`, and every checkpoint under `checkpoints/`. Files are written to a sibling temp
 * folder and renamed into place, so a crash leaves no half bundle under `outDir`.
 */
export async function writeBundle({spec, store, manifest, outDir}: WriteBundleParameters): Promise<{dir: string; files: string[]}> {
  const dir = path.resolve(outDir)
  const staging = `${dir}.partial-${process.pid}`
  await rm(staging, {recursive: true, force: true})
  await mkdir(path.join(staging, 'checkpoints'), {recursive: true})
  try {
    const checkpoints: BundleManifest['checkpoints'] = []
    for (const checkpoint of manifest.checkpoints) {
      const file = checkpointFileName(checkpoint.step)
      await writeFile(path.join(staging, file), await store.get(checkpoint.hash))
      checkpoints.push({step: checkpoint.step, file, sha256: checkpoint.hash})
    }
    await writeFile(path.join(staging, 'spec.json'), canonicalSpecBytes(spec))
    // a job on its own data carries the data set's canonical bytes (the same encoding gives the same hash)
    const data = 'source' in spec.dataset && spec.dataset.data !== undefined ? {file: 'data/dataset.bin', sha256: spec.dataset.data} : undefined
    if (data) {
      await mkdir(path.join(staging, 'data'), {recursive: true})
      await writeFile(path.join(staging, data.file), encodeDataset(publishedDataset(data.sha256 as Hex)))
    }
    const bundle: BundleManifest = {
      type: bundleType,
      version: bundleVersion,
      spec: {file: 'spec.json', sha256: manifest.specHash},
      specHash: manifest.specHash,
      datasetHash: manifest.datasetHash,
      runtime: manifest.runtime,
      checkpointInterval: manifest.checkpointInterval,
      checkpoints,
      merkleRoot: manifest.merkleRoot,
      ...(data ? {data} : {}),
    }
    // canonical JSON, the only encoding readBundle accepts (no duplicate keys, one byte string per value)
    await writeFile(path.join(staging, 'proof.json'), canonicalJson(bundle))
    await rm(dir, {recursive: true, force: true})
    await rename(staging, dir)
    return {dir, files: ['proof.json', 'spec.json', ...(data ? [data.file] : []), ...checkpoints.map((checkpoint) => checkpoint.file)]}
  } catch (error) {
    await rm(staging, {recursive: true, force: true})
    throw error
  }
}
