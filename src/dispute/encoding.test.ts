import assert from 'node:assert/strict'
import {keccak256, stringToHex, type Hex} from 'viem'
import {
  attrsJson,
  canonicalTensorBytes,
  commitmentChain,
  descriptorAttrs,
  descriptorHash,
  finalClaim,
  float32Bits,
  graphHash,
  initialCommitment,
  nextCommitment,
  outputHash,
  type OperatorDescriptor,
} from './index.js'

// ABI words written out by hand (not with encodeAbiParameters), so the layout itself is under test
const word = (n: number | bigint) => BigInt(n).toString(16).padStart(64, '0')
const padRight = (hex: string) => hex.padEnd(Math.ceil(hex.length / 64) * 64, '0')
const dynBytes = (hex: string) => word(hex.length / 2) + padRight(hex)
const dynString = (s: string) => dynBytes(stringToHex(s).slice(2))
const u32Array = (values: number[]) => word(values.length) + values.map(word).join('')
const u32ArrayArray = (arrays: number[][]) => {
  const tails = arrays.map(u32Array)
  let offset = 32 * arrays.length
  const heads = tails.map((t) => {
    const head = word(offset)
    offset += t.length / 2
    return head
  })
  return word(arrays.length) + heads.join('') + tails.join('')
}
/** abi.encode of several dynamic arguments: six offsets, then the tails in order. */
const encodeDynamic = (tails: string[]) => {
  let offset = 32 * tails.length
  const heads = tails.map((t) => {
    const head = word(offset)
    offset += t.length / 2
    return head
  })
  return `0x${heads.join('')}${tails.join('')}` as Hex
}
const byHand = (d: OperatorDescriptor) =>
  keccak256(encodeDynamic([dynString(d.kernel), u32Array(d.inputs), u32ArrayArray(d.inputShapes), u32Array(d.outputShape), dynString(d.outputDtype), dynBytes(d.attrs.slice(2))]))

const relu: OperatorDescriptor = {kernel: 'Relu', inputs: [7], inputShapes: [[32, 32]], outputShape: [32, 32], outputDtype: 'float32', attrs: '0x'}
const add: OperatorDescriptor = {kernel: 'Add', inputs: [3, 6], inputShapes: [[32, 32], [32]], outputShape: [32, 32], outputDtype: 'float32', attrs: '0x'}
const input: OperatorDescriptor = {kernel: 'Input', inputs: [], inputShapes: [], outputShape: [], outputDtype: 'float32', attrs: '0x'}
const step: OperatorDescriptor = {kernel: 'Step', inputs: [11], inputShapes: [[32, 32]], outputShape: [32, 32], outputDtype: 'float32', attrs: descriptorAttrs('Step', {alpha: 0}, 0)}

describe('dispute encodings', () => {
  it('descriptorHash is keccak256 of the fields abi-encoded as separate arguments', () => {
    for (const d of [relu, add, input, step]) assert.equal(descriptorHash(d), byHand(d), d.kernel)
    // fixed vectors, for the Solidity side (PinpointGame computes the same)
    assert.equal(descriptorHash(relu), '0xcd5760a0817739782bbae83aba5e00e70caf2c96ec8add0a5c30db51494c650a')
    assert.equal(descriptorHash(input), '0xd33e53a6458a6eefeb43f183fae99ffdacd2f64af34a71fac03bfde55f8aee60')
    assert.equal(graphHash([descriptorHash(input), descriptorHash(relu)]), '0xb70c40df17121cffe8aeadefa22b71bccfb8b044a890a50c45442b923a841bc0')
    assert.equal(initialCommitment(`0x${'11'.repeat(32)}`, 37), '0x048ad33c3ac2bb6ffeb740a95162394e86b9752646438606282df8b96a11c77e')
  })

  it('chains the graph and the commitments as the spec writes them', () => {
    const d = [descriptorHash(input), descriptorHash(relu)]
    const g1 = keccak256(`0x${word(0)}${d[0]!.slice(2)}`)
    const g2 = keccak256(`0x${g1.slice(2)}${d[1]!.slice(2)}`)
    assert.equal(graphHash(d), g2)
    assert.equal(graphHash([]), `0x${word(0)}`)
    const S: Hex = `0x${'11'.repeat(32)}`
    const S1: Hex = `0x${'22'.repeat(32)}`
    const o: Hex[] = [keccak256('0x01'), keccak256('0x02')]
    const c0 = keccak256(`0x${S.slice(2)}${word(37)}`)
    assert.equal(initialCommitment(S, 37), c0)
    const c1 = keccak256(`0x${c0.slice(2)}${o[0]!.slice(2)}`)
    const c2 = keccak256(`0x${c1.slice(2)}${o[1]!.slice(2)}`)
    assert.deepEqual(commitmentChain(S, 37, o), [c0, c1, c2])
    assert.equal(nextCommitment(c1, o[1]!), c2)
    assert.equal(finalClaim(c2, S1), keccak256(`0x${c2.slice(2)}${S1.slice(2)}`))
  })

  it('writes tensors little-endian with every float32 NaN as 0x7fc00000', () => {
    const bits = new Uint32Array([0x3f800000, 0x80000000, 0x7fc00001, 0xffc00000, 0x7f800001, 0x7f800000, 0xff800000, 0x00000001])
    const values = new Float32Array(bits.buffer)
    const bytes = canonicalTensorBytes(values, 'float32')
    const expected = '0000803f' + '00000080' + '0000c07f' + '0000c07f' + '0000c07f' + '0000807f' + '000080ff' + '01000000'
    assert.equal(Buffer.from(bytes).toString('hex'), expected)
    assert.equal(bits[2], 0x7fc00001, 'the input is not modified')
    // outputHash canonicalises raw bytes itself: any NaN payload hashes like the canonical one
    const raw = new Uint8Array(bits.buffer.slice(0))
    assert.equal(outputHash(raw, 'float32'), keccak256(`0x${expected}`))
    assert.equal(outputHash(bytes), keccak256(bytes))
    // int32 and bool are hashed as they are
    assert.equal(Buffer.from(canonicalTensorBytes(new Int32Array([-1, 2]), 'int32')).toString('hex'), 'ffffffff02000000')
    assert.equal(outputHash(new Uint8Array([0xff, 0xff, 0xc0, 0x7f]), 'int32'), keccak256('0xffffc07f'))
    assert.equal(Buffer.from(canonicalTensorBytes(new Uint8Array([1, 0, 1]), 'bool')).toString('hex'), '010001')
    assert.throws(() => canonicalTensorBytes(new Float32Array(1), 'complex64'), /dtype: expected float32, int32 or bool, got "complex64"/)
    assert.throws(() => outputHash(new Uint8Array(3), 'float32'), /expected a multiple of 4 bytes for float32, got 3/)
  })

  it('encodes attrs: empty on chain, alpha bits for Step, output index and attrs JSON hash otherwise', () => {
    for (const k of ['Relu', 'Neg', 'Add', 'Sub', 'Multiply', 'Reshape', 'Identity', 'Input']) assert.equal(descriptorAttrs(k, {shape: [1, 2]}, 0), '0x', k)
    assert.equal(descriptorAttrs('Step', {alpha: 0}, 0), `0x${word(0)}`)
    assert.equal(descriptorAttrs('Step', {alpha: 0.5}, 0), `0x${word(0x3f000000)}`)
    assert.equal(float32Bits(0.1), 0x3dcccccd)
    assert.throws(() => descriptorAttrs('Step', {}, 0), /Step attrs.alpha: expected a number/)
    const attrs = {transposeB: false, transposeA: true, activation: 'linear', leakyreluAlpha: undefined, pad: [1, 2], min: -Infinity, x: NaN}
    assert.equal(attrsJson(attrs), '{"activation":"linear","min":"-Infinity","pad":[1,2],"transposeA":true,"transposeB":false,"x":"NaN"}')
    assert.equal(attrsJson({perm: new Int32Array([1, 0])}), '{"perm":[1,0]}')
    assert.equal(attrsJson(undefined), '{}')
    const fused = descriptorAttrs('_FusedMatMul', attrs, 2)
    assert.equal(fused, `0x${word(2)}${keccak256(stringToHex(attrsJson(attrs))).slice(2)}`)
  })
})
