import {CheckpointFormatError} from './errors.js'
import type {Checkpoint, CheckpointTensor} from './types.js'

export const checkpointMagic = 'GSYNCKPT'
export const checkpointVersion = 1
export const optimizerCodes = {sgd: 0, adam: 1, momentum: 2} as const
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

const pad4 = (n: number) => (4 - (n % 4)) % 4

/** All tensors in file order: weights, then (adam) m, then v. */
export function checkpointTensors(checkpoint: Checkpoint): CheckpointTensor[] {
  const {weights, optimizer} = checkpoint
  if (optimizer.type === 'adam') return [...weights, ...optimizer.m, ...optimizer.v]
  return optimizer.type === 'momentum' ? [...weights, ...optimizer.m] : [...weights]
}

function u32(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
    throw new CheckpointFormatError(`${what}: expected a uint32, got ${value}`)
  return value
}

/**
 * Encodes a checkpoint in the canonical layout of docs/checkpoint-format.md (version 1): a 36-byte
 * header, then each tensor as name, shape and little-endian float32 values, 4-byte aligned throughout.
 * Float bits are copied verbatim (NaN payloads and -0 survive). For adam, `m` and `v` must name and shape
 * `m/<weight>` and `v/<weight>` for each weight in order.
 */
export function encodeCheckpoint(checkpoint: Checkpoint): Uint8Array {
  const {optimizer} = checkpoint
  if (optimizer.type === 'momentum') {
    if (optimizer.m.length !== checkpoint.weights.length) throw new CheckpointFormatError(`optimizer: expected one m per weight (${checkpoint.weights.length}), got ${optimizer.m.length}`)
    for (const [i, w] of checkpoint.weights.entries()) {
      const t = optimizer.m[i]
      if (t?.name !== `m/${w.name}` || t.shape.join(',') !== w.shape.join(','))
        throw new CheckpointFormatError(`optimizer.m[${i}]: expected m/${w.name} with shape [${w.shape.join(', ')}], got ${t?.name} [${t?.shape.join(', ')}]`)
    }
  }
  if (optimizer.type === 'adam') {
    if (optimizer.m.length !== checkpoint.weights.length || optimizer.v.length !== checkpoint.weights.length)
      throw new CheckpointFormatError(`optimizer: expected one m and one v per weight (${checkpoint.weights.length}), got ${optimizer.m.length} and ${optimizer.v.length}`)
    for (const [i, w] of checkpoint.weights.entries()) {
      for (const [kind, t] of [['m', optimizer.m[i]], ['v', optimizer.v[i]]] as const) {
        if (t?.name !== `${kind}/${w.name}` || t.shape.join(',') !== w.shape.join(','))
          throw new CheckpointFormatError(`optimizer.${kind}[${i}]: expected ${kind}/${w.name} with shape [${w.shape.join(', ')}], got ${t?.name} [${t?.shape.join(', ')}]`)
      }
    }
  }
  const tensors = checkpointTensors(checkpoint)
  const encoder = new TextEncoder()
  const names = tensors.map((t) => encoder.encode(t.name))
  let size = 36
  for (const [i, t] of tensors.entries()) {
    const name = names[i] as Uint8Array
    if (name.length === 0 || name.length > 1024) throw new CheckpointFormatError(`tensor ${i}: expected a name of 1..1024 bytes, got ${name.length}`)
    const count = t.shape.reduce((a, b) => a * u32(b, `${t.name} shape`), 1)
    if (count !== t.values.length)
      throw new CheckpointFormatError(`${t.name}: expected ${count} values for shape [${t.shape.join(', ')}], got ${t.values.length}`)
    if (t.shape.length > 8) throw new CheckpointFormatError(`${t.name}: expected rank <= 8, got ${t.shape.length}`)
    size += 4 + name.length + pad4(name.length) + 4 + 4 * t.shape.length + 4 * count
  }
  const bytes = new Uint8Array(size)
  const view = new DataView(bytes.buffer)
  for (let i = 0; i < 8; i++) bytes[i] = checkpointMagic.charCodeAt(i)
  view.setUint32(8, checkpointVersion, true)
  view.setUint32(12, u32(checkpoint.step, 'step'), true)
  view.setUint32(16, optimizerCodes[optimizer.type], true)
  if (optimizer.type === 'adam') {
    view.setUint32(20, u32(optimizer.t, 'optimizer.t'), true)
    view.setFloat32(24, optimizer.beta1Power, true)
    view.setFloat32(28, optimizer.beta2Power, true)
  }
  view.setUint32(32, tensors.length, true)
  let offset = 36
  for (const [i, t] of tensors.entries()) {
    const name = names[i] as Uint8Array
    view.setUint32(offset, name.length, true)
    bytes.set(name, offset + 4)
    offset += 4 + name.length + pad4(name.length)
    view.setUint32(offset, t.shape.length, true)
    offset += 4
    for (const d of t.shape) {
      view.setUint32(offset, d, true)
      offset += 4
    }
    const raw = new Uint8Array(t.values.buffer, t.values.byteOffset, t.values.byteLength)
    bytes.set(raw, offset)
    if (!littleEndian) swap32(bytes, offset, t.values.length)
    offset += raw.length
  }
  return bytes
}

/** Reverses each 4-byte word in place (big-endian hosts only). */
export function swap32(bytes: Uint8Array, offset: number, words: number): void {
  for (let i = 0; i < words; i++) {
    const o = offset + 4 * i
    const a = bytes[o] as number
    const b = bytes[o + 1] as number
    bytes[o] = bytes[o + 3] as number
    bytes[o + 1] = bytes[o + 2] as number
    bytes[o + 2] = b
    bytes[o + 3] = a
  }
}

export {littleEndian}
