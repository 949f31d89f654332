import type {Hex} from 'viem'
import {sha256Hex} from '../../store/sha256.js'
import {canonicalSpecBytes} from './canonicalSpecBytes.js'
import type {JobSpec} from './schema.js'

/** sha256 of {@link canonicalSpecBytes}: the spec's identity on chain and in the blob store. */
export function specHash(spec: JobSpec): Hex {
  return sha256Hex(canonicalSpecBytes(spec))
}
