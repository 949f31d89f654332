import {createHash} from 'node:crypto'
import type {Hex} from 'viem'

/** sha256 of bytes (or of several byte strings concatenated), as a 0x-prefixed lowercase hex string. */
export function sha256Hex(...parts: Uint8Array[]): Hex {
  const hash = createHash('sha256')
  for (const part of parts) hash.update(part)
  return `0x${hash.digest('hex')}`
}

/** Raw 32-byte sha256 of the concatenated parts. */
export function sha256Bytes(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash('sha256')
  for (const part of parts) hash.update(part)
  const digest = hash.digest()
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength)
}

const hashPattern = /^0x[0-9a-f]{64}$/

/** True for a 0x-prefixed, lowercase, 32-byte hex string (the form every gensyn hash takes). */
export function isHash(value: unknown): value is Hex {
  return typeof value === 'string' && hashPattern.test(value)
}
