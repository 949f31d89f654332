import {encodeAbiParameters, keccak256, type Hex} from 'viem'
import {canonicalJson} from '../store/canonicalJson.js'
import {DisputeTraceError} from './errors.js'
import type {OperatorDescriptor} from './types.js'

/**
 * The byte encodings and hash chains of the pinpoint dispute (docs/disputes.md, "The operator trace of
 * one step"). Each function here is mirrored by contracts/PinpointGame.sol, so every layout is an
 * `abi.encode` of the listed arguments, hashed with keccak256.
 */

/**
 * Kernels the contract re-executes itself (ElementwiseReferee), float32 only, by their tfjs kernel names
 * (`tf.mul` runs the kernel `Multiply`).
 */
export const onchainKernels: readonly string[] = ['Relu', 'Step', 'Neg', 'Add', 'Sub', 'Multiply', 'Reshape', 'Identity']

/** The canonical bit pattern every float32 NaN is written as. */
export const canonicalNaNBits = 0x7fc00000

export const zeroHash: Hex = `0x${'00'.repeat(32)}`

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

const descriptorAbi = [
  {type: 'string', name: 'kernel'},
  {type: 'uint32[]', name: 'inputs'},
  {type: 'uint32[][]', name: 'inputShapes'},
  {type: 'uint32[]', name: 'outputShape'},
  {type: 'string', name: 'outputDtype'},
  {type: 'bytes', name: 'attrs'},
] as const

const uint32 = (value: number, what: string): number => {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new DisputeTraceError(`${what}: expected a uint32, got ${value}`)
  return value
}

/** d_j = keccak256(abi.encode(string kernel, uint32[] inputs, uint32[][] inputShapes, uint32[] outputShape, string outputDtype, bytes attrs)). */
export function descriptorHash(descriptor: OperatorDescriptor): Hex {
  const {kernel, inputs, inputShapes, outputShape, outputDtype, attrs} = descriptor
  return keccak256(
    encodeAbiParameters(descriptorAbi, [
      kernel,
      inputs.map((v, i) => uint32(v, `descriptor.inputs[${i}]`)),
      inputShapes.map((s, i) => s.map((v, k) => uint32(v, `descriptor.inputShapes[${i}][${k}]`))),
      outputShape.map((v, i) => uint32(v, `descriptor.outputShape[${i}]`)),
      outputDtype,
      attrs,
    ]),
  )
}

/** g_j = keccak256(abi.encode(bytes32 g_{j-1}, bytes32 d_j)). */
export function nextGraphHash(previous: Hex, descriptorHash: Hex): Hex {
  return keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'bytes32'}], [previous, descriptorHash]))
}

/** g_m over d_1..d_m, from g_0 = 0x0. */
export function graphHash(descriptorHashes: readonly Hex[]): Hex {
  let g = zeroHash
  for (const d of descriptorHashes) g = nextGraphHash(g, d)
  return g
}

type TensorValues = Float32Array | Int32Array | Uint8Array

/** Bytes per element of a traced dtype (float32 and int32: 4, bool: 1). */
export function dtypeBytes(dtype: string): number {
  if (dtype === 'float32' || dtype === 'int32') return 4
  if (dtype === 'bool') return 1
  throw new DisputeTraceError(`dtype: expected float32, int32 or bool, got ${JSON.stringify(dtype)}`)
}

/** Replaces every float32 NaN in little-endian `bytes` by 0x7fc00000, in place. */
function canonicalizeNaNs(bytes: Uint8Array): void {
  if (littleEndian && bytes.byteOffset % 4 === 0) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2)
    for (let i = 0; i < words.length; i++) {
      const bits = words[i] as number
      if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x007fffff) !== 0) words[i] = canonicalNaNBits
    }
    return
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let o = 0; o + 4 <= bytes.length; o += 4) {
    const bits = view.getUint32(o, true)
    if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x007fffff) !== 0) view.setUint32(o, canonicalNaNBits, true)
  }
}

/**
 * The canonical output bytes of a tensor: little-endian, float32 and int32 4 bytes per element, bool 1,
 * every float32 NaN written as 0x7fc00000. Always a fresh copy.
 */
export function canonicalTensorBytes(values: TensorValues, dtype: string): Uint8Array {
  const size = dtypeBytes(dtype)
  if (values.BYTES_PER_ELEMENT !== size)
    throw new DisputeTraceError(`tensor values: expected ${size}-byte elements for ${dtype}, got ${values.BYTES_PER_ELEMENT}-byte elements`)
  const bytes = new Uint8Array(values.byteLength)
  bytes.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength))
  if (size === 4 && !littleEndian) {
    for (let o = 0; o < bytes.length; o += 4) {
      const a = bytes[o] as number
      const b = bytes[o + 1] as number
      bytes[o] = bytes[o + 3] as number
      bytes[o + 1] = bytes[o + 2] as number
      bytes[o + 2] = b
      bytes[o + 3] = a
    }
  }
  if (dtype === 'float32') canonicalizeNaNs(bytes)
  return bytes
}

/** o_j = keccak256(output bytes), the bytes made canonical first for float32 (every NaN as 0x7fc00000). */
export function outputHash(bytes: Uint8Array, dtype = 'float32'): Hex {
  const size = dtypeBytes(dtype)
  if (bytes.length % size !== 0) throw new DisputeTraceError(`output bytes: expected a multiple of ${size} bytes for ${dtype}, got ${bytes.length}`)
  if (dtype !== 'float32') return keccak256(bytes)
  const copy = new Uint8Array(bytes)
  canonicalizeNaNs(copy)
  return keccak256(copy)
}

/** c_0 = keccak256(abi.encode(bytes32 S_i, uint256 i)). */
export function initialCommitment(stateHash: Hex, step: number): Hex {
  return keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'uint256'}], [stateHash, BigInt(uint32(step, 'step'))]))
}

/** c_j = keccak256(abi.encode(bytes32 c_{j-1}, bytes32 o_j)). */
export function nextCommitment(previous: Hex, outputHash: Hex): Hex {
  return keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'bytes32'}], [previous, outputHash]))
}

/** c_0 .. c_m for the outputs o_1..o_m of step `step` from state `stateHash`. */
export function commitmentChain(stateHash: Hex, step: number, outputHashes: readonly Hex[]): Hex[] {
  const chain = [initialCommitment(stateHash, step)]
  for (const o of outputHashes) chain.push(nextCommitment(chain[chain.length - 1] as Hex, o))
  return chain
}

/** c_{m+1} = keccak256(abi.encode(bytes32 c_m, bytes32 S_{i+1})): the claim at the end of the operator bisection. */
export function finalClaim(finalCommitment: Hex, nextStateHash: Hex): Hex {
  return keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'bytes32'}], [finalCommitment, nextStateHash]))
}

/** A kernel attribute value made JSON-safe: typed arrays become arrays, non-finite numbers the strings "NaN", "Infinity", "-Infinity". */
function jsonSafe(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value)
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value as unknown as ArrayLike<number>, jsonSafe)
  if (Array.isArray(value)) return value.map(jsonSafe)
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = jsonSafe(v)
    return out
  }
  return value
}

/** Canonical JSON text of a kernel's attrs (sorted keys, undefined members dropped, see {@link jsonSafe}). */
export function attrsJson(attrs: Record<string, unknown> | undefined): string {
  return canonicalJson(jsonSafe(attrs ?? {}))
}

/** The float32 bit pattern of a number (after rounding it to float32). */
export function float32Bits(value: number): number {
  const view = new DataView(new ArrayBuffer(4))
  view.setFloat32(0, value)
  return view.getUint32(0)
}

/**
 * The `attrs` bytes of a descriptor: empty for `Input` and for the on-chain kernels but Step;
 * `abi.encode(uint32 alphaBits)` for Step; otherwise `abi.encode(uint32 outputIndex, bytes32
 * keccak256(canonical JSON of the kernel's attrs))`.
 */
export function descriptorAttrs(kernel: string, attrs: Record<string, unknown> | undefined, outputIndex: number): Hex {
  if (kernel === 'Input') return '0x'
  if (kernel === 'Step') {
    const alpha = attrs?.['alpha']
    if (typeof alpha !== 'number') throw new DisputeTraceError(`Step attrs.alpha: expected a number, got ${JSON.stringify(alpha)}`)
    return encodeAbiParameters([{type: 'uint32'}], [float32Bits(alpha)])
  }
  if (onchainKernels.includes(kernel)) return '0x'
  const json = new TextEncoder().encode(attrsJson(attrs))
  return encodeAbiParameters([{type: 'uint32'}, {type: 'bytes32'}], [uint32(outputIndex, 'outputIndex'), keccak256(json)])
}
