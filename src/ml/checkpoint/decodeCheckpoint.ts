import {checkpointMagic, checkpointVersion, littleEndian, swap32} from './encodeCheckpoint.js'
import {CheckpointFormatError} from './errors.js'
import type {Checkpoint, CheckpointTensor} from './types.js'

const pad4 = (n: number) => (4 - (n % 4)) % 4

/**
 * Decodes and strictly validates checkpoint bytes (docs/checkpoint-format.md): wrong magic, unknown
 * version or optimizer code, non-zero reserved/padding bytes, bad UTF-8 names, duplicate names, mismatched
 * optimizer tensors or trailing bytes all throw CheckpointFormatError, so every accepted byte string is
 * the one canonical encoding of its contents (decode then encode gives the same bytes).
 */
export function decodeCheckpoint(bytes: Uint8Array): Checkpoint {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let offset = 0
  const need = (n: number, what: string) => {
    if (offset + n > bytes.length)
      throw new CheckpointFormatError(`checkpoint truncated: expected ${n} more bytes for ${what} at offset ${offset}, got ${bytes.length - offset}`)
  }
  const u32 = (what: string) => {
    need(4, what)
    const v = view.getUint32(offset, true)
    offset += 4
    return v
  }
  need(36, 'the header')
  const magic = String.fromCharCode(...bytes.subarray(0, 8))
  if (magic !== checkpointMagic) throw new CheckpointFormatError(`checkpoint magic: expected "${checkpointMagic}", got ${JSON.stringify(magic)}`)
  offset = 8
  const version = u32('version')
  if (version !== checkpointVersion) throw new CheckpointFormatError(`checkpoint version: expected ${checkpointVersion}, got ${version}`)
  const step = u32('step')
  const code = u32('optimizer')
  const t = u32('optimizer step')
  const beta1Power = view.getFloat32(24, true)
  const beta2Power = view.getFloat32(28, true)
  offset = 32
  const count = u32('tensor count')
  if (code > 2) throw new CheckpointFormatError(`checkpoint optimizer: expected 0 (sgd), 1 (adam) or 2 (momentum), got ${code}`)
  if (code !== 1 && (t !== 0 || view.getUint32(24, true) !== 0 || view.getUint32(28, true) !== 0))
    throw new CheckpointFormatError(`checkpoint header: expected zero optimizer fields for ${code === 0 ? 'sgd' : 'momentum'}`)
  const decoder = new TextDecoder('utf-8', {fatal: true})
  const tensors: CheckpointTensor[] = []
  const seen = new Set<string>()
  for (let i = 0; i < count; i++) {
    const nameLength = u32(`tensor ${i} name length`)
    if (nameLength === 0 || nameLength > 1024) throw new CheckpointFormatError(`tensor ${i} name: expected 1..1024 bytes, got ${nameLength}`)
    need(nameLength + pad4(nameLength), `tensor ${i} name`)
    let name: string
    try {
      name = decoder.decode(bytes.subarray(offset, offset + nameLength))
    } catch (error) {
      throw new CheckpointFormatError(`tensor ${i} name: expected UTF-8`, {cause: error})
    }
    if (seen.has(name)) throw new CheckpointFormatError(`tensor ${i} name: expected unique names, got a second "${name}"`)
    seen.add(name)
    offset += nameLength
    for (let p = 0; p < pad4(nameLength); p++)
      if (bytes[offset++] !== 0) throw new CheckpointFormatError(`tensor "${name}": expected zero padding after the name`)
    const rank = u32(`${name} rank`)
    if (rank > 8) throw new CheckpointFormatError(`tensor "${name}" rank: expected <= 8, got ${rank}`)
    const shape: number[] = []
    for (let d = 0; d < rank; d++) shape.push(u32(`${name} shape`))
    const size = shape.reduce((a, b) => a * b, 1)
    need(4 * size, `${name} values`)
    const raw = bytes.slice(offset, offset + 4 * size) // copy: aligned, independent of the input buffer
    if (!littleEndian) swap32(raw, 0, size)
    offset += 4 * size
    tensors.push({name, shape, values: new Float32Array(raw.buffer, 0, size)})
  }
  if (offset !== bytes.length) throw new CheckpointFormatError(`checkpoint: expected ${offset} bytes, got ${bytes.length} (trailing data)`)
  if (code === 0) return {step, weights: tensors, optimizer: {type: 'sgd'}}
  if (code === 2) {
    if (count % 2 !== 0) throw new CheckpointFormatError(`momentum checkpoint: expected 2 tensors per weight, got ${count} tensors`)
    const weights = tensors.slice(0, count / 2)
    const m = tensors.slice(count / 2)
    for (const [i, w] of weights.entries()) {
      const s = m[i]
      if (s?.name !== `m/${w.name}` || s.shape.join(',') !== w.shape.join(','))
        throw new CheckpointFormatError(`momentum checkpoint: expected m/${w.name} [${w.shape.join(', ')}], got ${s?.name} [${s?.shape.join(', ')}]`)
    }
    return {step, weights, optimizer: {type: 'momentum', m}}
  }
  if (count % 3 !== 0) throw new CheckpointFormatError(`adam checkpoint: expected 3 tensors per weight, got ${count} tensors`)
  const n = count / 3
  const weights = tensors.slice(0, n)
  const m = tensors.slice(n, 2 * n)
  const v = tensors.slice(2 * n)
  for (const [i, w] of weights.entries()) {
    for (const [kind, s] of [['m', m[i]], ['v', v[i]]] as const) {
      if (s?.name !== `${kind}/${w.name}` || s.shape.join(',') !== w.shape.join(','))
        throw new CheckpointFormatError(`adam checkpoint: expected ${kind}/${w.name} [${w.shape.join(', ')}], got ${s?.name} [${s?.shape.join(', ')}]`)
    }
  }
  return {step, weights, optimizer: {type: 'adam', t, beta1Power, beta2Power, m, v}}
}
