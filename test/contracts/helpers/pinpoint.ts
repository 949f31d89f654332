import {type Hex, keccak256, toHex} from 'viem'

import * as offchain from '../../../src/dispute/encoding.js'

/**
 * The commitments of PinpointGame (docs/disputes.md, "The operator trace of one step"), for the tests to build
 * traces and check the contract's encodings:
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

/**
 * The off-chain encodings of src/dispute/encoding.ts (what the dispute agent posts), adapted to this file's
 * bigint steps and readonly arrays: the contract tests then prove the contract agrees with the code that plays
 * the game, not with a second copy of it.
 */
export function descriptorHash(op: Operation): Hex {
  return offchain.descriptorHash({...op, inputs: [...op.inputs], inputShapes: op.inputShapes.map((shape) => [...shape]), outputShape: [...op.outputShape]})
}

/** g_m over d_1 .. d_m (zero for no operators). */
export const graphHash = (descriptorHashes: readonly Hex[]): Hex => offchain.graphHash(descriptorHashes)

export const initialCommitment = (stateHash: Hex, step: bigint): Hex => offchain.initialCommitment(stateHash, Number(step))

export const nextCommitment = (previous: Hex, outputHash: Hex): Hex => offchain.nextCommitment(previous, outputHash)

/** [c_0, c_1, .., c_m]. */
export const commitments = (stateHash: Hex, step: bigint, outputHashes: readonly Hex[]): Hex[] => offchain.commitmentChain(stateHash, Number(step), outputHashes)

/** c_{m+1}: the final commitment bound to the state S_{i+1} it assembles into. */
export const closingCommitment = (finalCommitment: Hex, nextState: Hex): Hex => offchain.finalClaim(finalCommitment, nextState)

/** float32 values as little-endian bytes, every NaN written as 0x7fc00000. */
export const float32Bytes = (values: ArrayLike<number>): Hex => toHex(offchain.canonicalTensorBytes(Float32Array.from(values), 'float32'))

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
