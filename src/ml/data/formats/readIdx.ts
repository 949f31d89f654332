import {DataInputError} from '../errors.js'
import type {ArraySet} from './table.js'

// IDX (LeCun's MNIST format): 2 zero bytes, a type byte, a rank byte, rank big-endian u32 dimensions, then the
// values big-endian. Small enough to read here; no well-kept parser package exists for it.
const types: Record<number, {bytes: number; read: (view: DataView, offset: number) => number; name: string}> = {
  0x08: {bytes: 1, read: (v, o) => v.getUint8(o), name: 'ubyte'},
  0x09: {bytes: 1, read: (v, o) => v.getInt8(o), name: 'byte'},
  0x0b: {bytes: 2, read: (v, o) => v.getInt16(o), name: 'short'},
  0x0c: {bytes: 4, read: (v, o) => v.getInt32(o), name: 'int'},
  0x0d: {bytes: 4, read: (v, o) => v.getFloat32(o), name: 'float'},
  0x0e: {bytes: 8, read: (v, o) => v.getFloat64(o), name: 'double'},
}

/** An IDX file: one array of any rank, named `name`. */
export function readIdx(bytes: Uint8Array, where: string, name = 'x'): ArraySet {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (bytes.length < 4 || view.getUint16(0) !== 0) throw new DataInputError(`${where}: expected an IDX file (two zero bytes first)`)
  const type = types[view.getUint8(2)]
  if (type === undefined) throw new DataInputError(`${where}: expected an IDX type byte 0x08, 0x09, 0x0b, 0x0c, 0x0d or 0x0e, got 0x${view.getUint8(2).toString(16)}`)
  const rank = view.getUint8(3)
  if (rank < 1 || bytes.length < 4 + 4 * rank) throw new DataInputError(`${where}: expected ${rank} dimensions after the magic, the file ends early`)
  const shape = Array.from({length: rank}, (_, i) => view.getUint32(4 + 4 * i))
  const count = shape.reduce((a, b) => a * b, 1)
  const offset = 4 + 4 * rank
  if (bytes.length !== offset + count * type.bytes)
    throw new DataInputError(`${where}: expected ${offset + count * type.bytes} bytes for ${type.name} [${shape.join(', ')}], got ${bytes.length}`)
  const data = type.bytes === 1 && type.name === 'ubyte' ? bytes.subarray(offset) : Float64Array.from({length: count}, (_, i) => type.read(view, offset + i * type.bytes))
  return {kind: 'arrays', arrays: new Map([[name, {shape, data}]])}
}
