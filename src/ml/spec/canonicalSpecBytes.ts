import {canonicalJsonBytes} from '../../store/canonicalJson.js'
import type {JobSpec} from './schema.js'

/**
 * The canonical bytes of a validated spec: UTF-8 JSON with object keys sorted recursively and no
 * whitespace, after defaults are filled in (so a spec that spells out a default hashes like one that
 * leaves it out). These bytes are what the blob store holds under {@link specHash}.
 */
export function canonicalSpecBytes(spec: JobSpec): Uint8Array {
  return canonicalJsonBytes(spec)
}
