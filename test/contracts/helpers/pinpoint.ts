import {encodeAbiParameters, type Hex, keccak256, toHex, zeroHash} from 'viem'

/**
 * The commitments of PinpointGame (docs/disputes.md, "The operator trace of one step"), computed with viem the
 * way the contract computes them, for the tests to build traces and check the contract's encodings:
 *   d_j = keccak256(abi.encode(string kernel, uint32[] inputs, uint32[][] inputShapes, uint32[] outputShape,
 *                              string outputDtype, bytes attrs))            (six arguments, not one tuple)
 *   g_0 = 0x0, g_j = keccak256(abi.encode(bytes32 g_{j-1}, bytes32 d_j)), graphHash = g_m
 *   o_j = keccak256(output bytes)
 *   c_0 = keccak256(abi.encode(bytes32 S_i, uint256 i)), c_j = keccak256(abi.encode(bytes32 c_{j-1}, bytes32 o_j))
 *   c_{m+1} = keccak256(abi.encode(bytes32 c_m, bytes32 S_{i+1}))
 */
export type Operation = {
  kernel: string
  inputs: readonly number[]
  inputShapes: readonly (readonly number[])[]
  outputShape: readonly number[]
  outputDtype: string
  attrs: Hex
}

const descriptorTypes = [
  {type: 'string'},
  {type: 'uint32[]'},
  {type: 'uint32[][]'},
  {type: 'uint32[]'},
  {type: 'string'},
  {type: 'bytes'},
] as const
const pairTypes = [{type: 'bytes32'}, {type: 'bytes32'}] as const

export function descriptorHash(op: Operation): Hex {
  return keccak256(encodeAbiParameters(descriptorTypes, [op.kernel, op.inputs, op.inputShapes, op.outputShape, op.outputDtype, op.attrs]))
}

/** g_m over d_1 .. d_m (zero for no operators). */
export function graphHash(descriptorHashes: readonly Hex[]): Hex {
  return descriptorHashes.reduce<Hex>((g, d) => keccak256(encodeAbiParameters(pairTypes, [g, d])), zeroHash)
}

export function initialCommitment(stateHash: Hex, step: bigint): Hex {
  return keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'uint256'}], [stateHash, step]))
}

export function nextCommitment(previous: Hex, outputHash: Hex): Hex {
  return keccak256(encodeAbiParameters(pairTypes, [previous, outputHash]))
}

/** [c_0, c_1, .., c_m]. */
export function commitments(stateHash: Hex, step: bigint, outputHashes: readonly Hex[]): Hex[] {
  const chain = [initialCommitment(stateHash, step)]
  for (const o of outputHashes) chain.push(nextCommitment(chain[chain.length - 1]!, o))
  return chain
}

/** c_{m+1}: the final commitment bound to the state S_{i+1} it assembles into. */
export function closingCommitment(finalCommitment: Hex, nextState: Hex): Hex {
  return keccak256(encodeAbiParameters(pairTypes, [finalCommitment, nextState]))
}

/** float32 values as little-endian bytes, every NaN written as 0x7fc00000. */
export function float32Bytes(values: ArrayLike<number>): Hex {
  const bytes = new Uint8Array(values.length * 4)
  const view = new DataView(bytes.buffer)
  for (let k = 0; k < values.length; k++) {
    const value = values[k]!
    if (Number.isNaN(value)) view.setUint32(k * 4, 0x7fc00000, true)
    else view.setFloat32(k * 4, value, true)
  }
  return toHex(bytes)
}

/** One party's trace of a step: its elements, their output bytes and everything derived from them. */
export type Trace = {
  ops: Operation[]
  outputs: Hex[]
  descriptorHashes: Hex[]
  outputHashes: Hex[]
  graphHash: Hex
  /** [c_0 .. c_m] */
  commitments: Hex[]
  finalCommitment: Hex
}

export function buildTrace(stateHash: Hex, step: bigint, ops: Operation[], outputs: Hex[]): Trace {
  const descriptorHashes = ops.map(descriptorHash)
  const outputHashes = outputs.map((bytes) => keccak256(bytes))
  const chain = commitments(stateHash, step, outputHashes)
  return {ops, outputs, descriptorHashes, outputHashes, graphHash: graphHash(descriptorHashes), commitments: chain, finalCommitment: chain[chain.length - 1]!}
}
