import {unzipSync} from 'fflate'
import {parse} from 'npyjs'

import {DataInputError} from '../errors.js'
import type {ArraySet, NdArray} from './table.js'

function toNdArray(bytes: Uint8Array, where: string): NdArray {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(buffer)
  } catch (error) {
    throw new DataInputError(`${where}: expected an NPY array, got ${(error as Error).message}`)
  }
  if (parsed.fortranOrder) throw new DataInputError(`${where}: expected a C-order (row-major) array, got Fortran order (save it with np.ascontiguousarray)`)
  const data = parsed.data as unknown
  if (Array.isArray(data)) return {shape: parsed.shape, data: data as string[]}
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) return {shape: parsed.shape, data: Array.from(data, Number)}
  if (parsed.dtype === 'c8' || parsed.dtype === 'c16') throw new DataInputError(`${where}: expected a real numeric dtype, got complex ${parsed.dtype}`)
  return {shape: parsed.shape, data: data as ArrayLike<number>}
}

/** One NPY file (npyjs): any shape, any numeric dtype or unicode strings (labels). */
export function readNpy(bytes: Uint8Array, where: string, name = 'x'): ArraySet {
  return {kind: 'arrays', arrays: new Map([[name, toNdArray(bytes, where)]])}
}

/** An NPZ archive (np.savez / savez_compressed: a zip of NPY files, unzipped by fflate), arrays by name. */
export function readNpz(bytes: Uint8Array, where: string): ArraySet {
  let files: Record<string, Uint8Array>
  try {
    files = unzipSync(bytes)
  } catch (error) {
    throw new DataInputError(`${where}: expected an NPZ (zip) archive, got ${(error as Error).message}`)
  }
  const arrays = new Map<string, NdArray>()
  for (const [file, content] of Object.entries(files)) {
    if (!file.endsWith('.npy')) continue
    const name = file.slice(0, -4)
    arrays.set(name, toNdArray(content, `${where}: ${name}`))
  }
  if (arrays.size === 0) throw new DataInputError(`${where}: expected NPY arrays in the archive, found none`)
  return {kind: 'arrays', arrays}
}
