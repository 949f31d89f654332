import {canonicalJsonBytes} from '../../store/canonicalJson.js'
import type {JobSpec} from './schema.js'

/**
 * The canonical bytes of a validated spec: UTF-8 JSON with object keys sorted recursively and no
 * whitespace, after defaults are filled in (so a spec that spells out a default hashes like one that
 * leaves it out). These bytes are what the blob store holds under {@link specHash}.
 * `training.microBatches` has no zod default, so that the specs written before it existed keep their hashes;
 * its default, 1, is dropped here for the same reason.
 */
export function canonicalSpecBytes(spec: JobSpec): Uint8Array {
  if (spec.training.microBatches !== 1) return canonicalJsonBytes(spec)
  const {microBatches: _, ...training} = spec.training
  return canonicalJsonBytes({...spec, training})
}
