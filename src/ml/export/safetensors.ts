import {BaseError} from '../../errors/base.js'
import type {CheckpointTensor} from '../checkpoint/types.js'

/** A safetensors file that cannot be written or read as this layout. */
export class SafetensorsError extends BaseError {
  override name = 'SafetensorsError'
}

/**
 * Hugging Face's safetensors layout (https://huggingface.co/docs/safetensors): u64le header size N, N bytes of
 * JSON (`{name: {dtype, shape, data_offsets: [begin, end]}, __metadata__: {string: string}}`, padded with spaces
 * to a multiple of 8), then the tensors' bytes, little-endian, in header order. Only float32 (`F32`) here: what
 * checkpoints hold. No npm package is a maintained writer, and the layout is a dozen lines.
 */
export function encodeSafetensors(tensors: readonly CheckpointTensor[], metadata: Record<string, string> = {}): Uint8Array {
  const header: Record<string, unknown> = {}
  if (Object.keys(metadata).length > 0) header['__metadata__'] = metadata
  let offset = 0
  for (const tensor of tensors) {
    const bytes = tensor.values.length * 4
    header[tensor.name] = {dtype: 'F32', shape: tensor.shape, data_offsets: [offset, offset + bytes]}
    offset += bytes
  }
  let json = JSON.stringify(header)
  json += ' '.repeat((8 - (Buffer.byteLength(json) % 8)) % 8)
  const headerBytes = Buffer.from(json, 'utf8')
  const out = new Uint8Array(8 + headerBytes.length + offset)
  const view = new DataView(out.buffer)
  view.setBigUint64(0, BigInt(headerBytes.length), true)
  out.set(headerBytes, 8)
  let at = 8 + headerBytes.length
  for (const tensor of tensors) {
    for (const value of tensor.values) {
      view.setFloat32(at, value, true)
      at += 4
    }
  }
  return out
}

/** Reads a safetensors file of F32 tensors back, in header order, and its metadata. */
export function decodeSafetensors(bytes: Uint8Array): {tensors: CheckpointTensor[]; metadata: Record<string, string>} {
  const fail = (what: string) => new SafetensorsError(`safetensors: ${what}`)
  if (bytes.length < 8) throw fail('expected an 8-byte header size')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const size = Number(view.getBigUint64(0, true))
  if (8 + size > bytes.length) throw fail(`expected a ${size}-byte header, the file ends early`)
  let header: Record<string, {dtype?: string; shape?: number[]; data_offsets?: [number, number]} | Record<string, string>>
  try {
    header = JSON.parse(Buffer.from(bytes.subarray(8, 8 + size)).toString('utf8'))
  } catch (error) {
    throw fail(`expected a JSON header (${(error as Error).message})`)
  }
  const base = 8 + size
  const tensors: CheckpointTensor[] = []
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue
    const {dtype, shape, data_offsets: offsets} = entry as {dtype?: string; shape?: number[]; data_offsets?: [number, number]}
    if (dtype !== 'F32') throw fail(`${name}: expected dtype F32, got ${JSON.stringify(dtype)}`)
    if (!Array.isArray(shape) || !Array.isArray(offsets)) throw fail(`${name}: expected shape and data_offsets`)
    const count = shape.reduce((a, b) => a * b, 1)
    if (offsets[1] - offsets[0] !== count * 4 || base + offsets[1] > bytes.length) throw fail(`${name}: expected ${count * 4} bytes at ${offsets[0]}, got ${offsets[1] - offsets[0]}`)
    const values = new Float32Array(count)
    for (let i = 0; i < count; i++) values[i] = view.getFloat32(base + offsets[0] + i * 4, true)
    tensors.push({name, shape, values})
  }
  return {tensors, metadata: (header['__metadata__'] as Record<string, string> | undefined) ?? {}}
}
