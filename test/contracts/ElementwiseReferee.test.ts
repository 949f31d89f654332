import assert from 'node:assert/strict'

import * as tf from '@tensorflow/tfjs'
import {type Address, encodeAbiParameters, getAddress, type Hex, toHex} from 'viem'
import {mnemonicToAccount} from 'viem/accounts'

import {type Anvil, createAnvil} from '../../src/chain/anvil.js'
import {createClients, type GensynPublicClient} from '../../src/chain/clients.js'
import {selectBackend} from '../../src/ml/backend/selectBackend.js'
import {DEV_MNEMONIC, expectRevert, receiptOf} from './helpers/chain.js'
import {fixture} from './helpers/compileFixtures.js'

// ElementwiseReferee (contracts/ElementwiseReferee.sol) and Float32 (contracts/Float32.sol) on a real anvil,
// through test/contracts/fixtures/RefereeHarness.sol. The oracle is real tfjs on the wasm backend: for every
// kernel the contract's output bytes must equal tfjs-wasm's output bytes, with every NaN written as 0x7fc00000
// (docs/disputes.md, "The operator trace of one step").

const CANONICAL_NAN = 0x7fc00000
const harnessArtifact = fixture('RefereeHarness')

// ------------------------------------------------------------------ float32 bit patterns

const f32 = new Float32Array(1)
const u32 = new Uint32Array(f32.buffer)
function floatOf(bits: number): number {
  u32[0] = bits >>> 0
  return f32[0]!
}
function bitsOf(value: number): number {
  f32[0] = value
  return u32[0]!
}
function canonical(bits: number): number {
  return (bits & 0x7fffffff) > 0x7f800000 ? CANONICAL_NAN : bits >>> 0
}
const hex8 = (bits: number) => `0x${(bits >>> 0).toString(16).padStart(8, '0')}`

/** Tensor bytes (little-endian float32) of these bit patterns, exactly as given (NaN payloads kept). */
function tensorBytes(bits: readonly number[] | Uint32Array): Hex {
  return toHex(new Uint8Array(Uint32Array.from(bits).buffer))
}

/** A seeded PRNG (mulberry32): the same cases on every run; the seed is in every failure message. */
function prng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Normally distributed values times 2^[-8, 8]: what activations and weights look like. */
function normalFloats(random: () => number, n: number): number[] {
  return Array.from({length: n}, () => {
    const gauss = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
    return bitsOf(gauss * 2 ** Math.floor(random() * 17 - 8))
  })
}

/**
 * Random bit patterns that reach every corner: zeros, subnormals, the smallest and largest exponents,
 * infinities, NaNs (any payload, either sign), all-zero and all-one fractions.
 */
function edgyBits(random: () => number): number {
  const r = random()
  const exponent =
    r < 0.2 ? 0 : r < 0.25 ? 255 : r < 0.3 ? 1 : r < 0.35 ? 254 : r < 0.4 ? 253 : r < 0.45 ? 2 : Math.floor(random() * 256)
  const f = random()
  const fraction = f < 0.1 ? 0 : f < 0.15 ? 0x7fffff : f < 0.25 ? Math.floor(random() * 16) : f < 0.3 ? 0x400000 : Math.floor(random() * 0x800000)
  return ((random() < 0.5 ? 0x80000000 : 0) | (exponent << 23) | fraction) >>> 0
}

/** The special values every kernel is checked on (both zeros, subnormals, extremes, infinities, NaNs). */
const SPECIALS = [
  0x00000000, 0x80000000, // +0, -0
  0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00400000, // subnormals
  0x00800000, 0x80800000, 0x00800001, // smallest normals
  0x7f7fffff, 0xff7fffff, 0x7f7ffffe, // largest finite
  0x7f800000, 0xff800000, // infinities
  0x7fc00000, 0xffc00000, 0x7f800001, 0xff812345, // NaNs: canonical, negative, signalling payloads
  0x3f800000, 0xbf800000, 0x3f800001, 0x33800000, 0x34000000, 0xb3800000, // 1, -1, 1+ulp, half-ulps of 1
  0x4b000000, 0x4b000001, 0x3fc00000, 0x3effffff, // 2^23, 2^23+1, 1.5, 0.49999997
].map((b) => b >>> 0)

// ------------------------------------------------------------------ the tfjs-wasm oracle

type Tensor = {bits: number[]; shape: number[]}

function toTf({bits, shape}: Tensor): tf.Tensor {
  return tf.tensor(new Float32Array(Uint32Array.from(bits).buffer), shape, 'float32')
}

/** Runs `fn` on tfjs-wasm and returns the output bytes with every NaN canonical (what the trace hashes). */
function wasmOutput(inputs: Tensor[], fn: (...xs: tf.Tensor[]) => tf.Tensor): {bytes: Hex; shape: number[]} {
  return tf.tidy(() => {
    assert.equal(tf.getBackend(), 'wasm')
    const out = fn(...inputs.map(toTf))
    const raw = new Uint32Array((out.dataSync() as Float32Array).slice().buffer)
    return {bytes: tensorBytes(Array.from(raw, canonical)), shape: out.shape}
  })
}

const stepAttrs = (alphaBits: number): Hex => encodeAbiParameters([{type: 'uint32'}], [alphaBits >>> 0])

/** The kernels under test: tfjs kernel name, how tfjs runs it, and the descriptor attrs. */
const unaryKernels: {kernel: string; run: (x: tf.Tensor) => tf.Tensor; attrs: Hex}[] = [
  {kernel: 'Relu', run: (x) => tf.relu(x), attrs: '0x'},
  {kernel: 'Neg', run: (x) => tf.neg(x), attrs: '0x'},
  {kernel: 'Step', run: (x) => tf.step(x), attrs: stepAttrs(0)},
  {kernel: 'Step', run: (x) => tf.step(x, 0.5), attrs: stepAttrs(0x3f000000)},
  {kernel: 'Step', run: (x) => tf.step(x, -2), attrs: stepAttrs(0xc0000000)},
  {kernel: 'Step', run: (x) => tf.step(x, 0.1), attrs: stepAttrs(bitsOf(0.1))}, // wasm takes alpha as an f32: fround(0.1)
  {kernel: 'Step', run: (x) => tf.step(x, floatOf(1)), attrs: stepAttrs(1)}, // a subnormal alpha
  {kernel: 'Step', run: (x) => tf.step(x, -0), attrs: stepAttrs(0x80000000)},
  {kernel: 'Step', run: (x) => tf.step(x, NaN), attrs: stepAttrs(CANONICAL_NAN)},
  {kernel: 'Step', run: (x) => tf.step(x, -Infinity), attrs: stepAttrs(0xff800000)},
]
const binaryKernels: {kernel: string; run: (a: tf.Tensor, b: tf.Tensor) => tf.Tensor; float: (a: number, b: number) => number}[] = [
  {kernel: 'Add', run: (a, b) => tf.add(a, b), float: (a, b) => a + b},
  {kernel: 'Sub', run: (a, b) => tf.sub(a, b), float: (a, b) => a - b},
  {kernel: 'Multiply', run: (a, b) => tf.mul(a, b), float: (a, b) => a * b},
]

// ------------------------------------------------------------------ the suite

describe('ElementwiseReferee and Float32 (on anvil, against tfjs-wasm)', function () {
  this.timeout(60_000)
  let anvil: Anvil
  let publicClient: GensynPublicClient
  let harness: Address

  before(async function () {
    await selectBackend('wasm')
    anvil = createAnvil({accounts: 1})
    await anvil.start()
    const key = mnemonicToAccount(DEV_MNEMONIC, {addressIndex: 0}).getHdKey().privateKey
    assert.ok(key)
    const clients = await createClients({rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, privateKey: toHex(key), pollingInterval: 20})
    publicClient = clients.publicClient
    const hash = await clients.walletClient.deployContract({abi: harnessArtifact.abi, bytecode: harnessArtifact.bytecode})
    const receipt = await receiptOf(publicClient, hash)
    assert.ok(receipt.contractAddress)
    harness = getAddress(receipt.contractAddress)
  })

  after(async () => {
    await anvil?.stop()
  })

  function read<T>(functionName: string, args: readonly unknown[]): Promise<T> {
    return publicClient.readContract({address: harness, abi: harnessArtifact.abi, functionName, args}) as Promise<T>
  }
  function execute(kernel: string, inputs: Hex[], inputShapes: number[][], outputShape: number[], attrs: Hex = '0x'): Promise<Hex> {
    return read<Hex>('execute', [kernel, inputs, inputShapes, outputShape, attrs])
  }

  /** Runs one kernel on the contract and on tfjs-wasm and asserts the same output bytes, element by element. */
  async function expectSameAsWasm(kernel: string, inputs: Tensor[], run: (...xs: tf.Tensor[]) => tf.Tensor, attrs: Hex = '0x', label = ''): Promise<void> {
    const expected = wasmOutput(inputs, run)
    const actual = await execute(
      kernel,
      inputs.map((t) => tensorBytes(t.bits)),
      inputs.map((t) => t.shape),
      expected.shape,
      attrs,
    )
    if (actual === expected.bytes) return
    // Name the first differing element and its inputs.
    const words = (h: Hex) => Array.from(new Uint32Array(Uint8Array.from(Buffer.from(h.slice(2), 'hex')).buffer))
    const got = words(actual)
    const want = words(expected.bytes)
    const at = want.findIndex((w, i) => w !== got[i])
    // (the operands at the same flat index: exact for equal shapes, a hint under broadcasting)
    const operands = inputs.map((t) => hex8(t.bits[at % t.bits.length] ?? 0)).join(', ')
    assert.fail(`${kernel}${label}: element ${at} (operands ${operands}): contract ${hex8(got[at] ?? 0)}, tfjs-wasm ${hex8(want[at] ?? 0)} (lengths ${got.length}/${want.length})`)
  }

  describe('kernels, bit for bit against tfjs-wasm', () => {
    it('unary kernels (Relu, Neg, Step with several alphas) on normal floats and every special value', async () => {
      const random = prng(1)
      const x: Tensor = {bits: [...SPECIALS, ...normalFloats(random, 500), ...Array.from({length: 300}, () => edgyBits(random))], shape: []}
      x.shape = [x.bits.length]
      for (const {kernel, run, attrs} of unaryKernels) await expectSameAsWasm(kernel, [x], run, attrs, ` attrs ${attrs}`)
    })

    it("pins wasm's edge cases: Relu(-0) = +0, Relu(NaN) = NaN, Relu(-NaN) = +0, Step(NaN) = NaN, Step(±0) = alpha, Neg(+0) = -0", async () => {
      const x = tensorBytes([0x80000000, CANONICAL_NAN, 0xffc00000, 0x00000000, 0xff800000, 0x00000001])
      const shape = [[6]]
      assert.equal(await execute('Relu', [x], shape, [6]), tensorBytes([0, CANONICAL_NAN, 0, 0, 0, 1]))
      assert.equal(await execute('Step', [x], shape, [6], stepAttrs(0x3f000000)), tensorBytes([0x3f000000, CANONICAL_NAN, CANONICAL_NAN, 0x3f000000, 0x3f000000, 0x3f800000]))
      assert.equal(await execute('Neg', [x], shape, [6]), tensorBytes([0, CANONICAL_NAN, CANONICAL_NAN, 0x80000000, 0x7f800000, 0x80000001]))
      // ...and tfjs-wasm agrees on each of them
      const t: Tensor = {bits: [0x80000000, CANONICAL_NAN, 0xffc00000, 0x00000000, 0xff800000, 0x00000001], shape: [6]}
      await expectSameAsWasm('Relu', [t], (v) => tf.relu(v))
      await expectSameAsWasm('Step', [t], (v) => tf.step(v, 0.5), stepAttrs(0x3f000000))
      await expectSameAsWasm('Neg', [t], (v) => tf.neg(v))
    })

    it('Add, Sub, Multiply on normal floats, random bit patterns and every pair of special values', async () => {
      const random = prng(2)
      // every special against every special (both orders), then random and normal pairs
      const a = SPECIALS.flatMap((s) => SPECIALS.map(() => s))
      const b = SPECIALS.flatMap(() => SPECIALS)
      const normalA = normalFloats(random, 400)
      const normalB = normalFloats(random, 400)
      const edgyA = Array.from({length: 400}, () => edgyBits(random))
      const edgyB = Array.from({length: 400}, () => edgyBits(random))
      const n = a.length + 800
      const A: Tensor = {bits: [...a, ...normalA, ...edgyA], shape: [n]}
      const B: Tensor = {bits: [...b, ...normalB, ...edgyB], shape: [n]}
      for (const {kernel, run} of binaryKernels) await expectSameAsWasm(kernel, [A, B], run)
    })

    it('Add, Sub, Multiply round ties to even, overflow to infinity, and produce and consume subnormals', async () => {
      const pairs: [number, number][] = [
        // ties at 1: 1 + 2^-24 (tie, even: down), (1 + 2^-23) + 2^-24 (tie, odd: up), 1 + 3*2^-25 (above the tie)
        [0x3f800000, 0x33800000],
        [0x3f800001, 0x33800000],
        [0x3f800000, 0x33c00000],
        [0x3f800000, 0xb3000000], // 1 - 2^-25: a tie just below a power of two (ulp halves there)
        [0x3f800000, 0xb3400000],
        [0x4b000000, 0x3f000000], // 2^23 + 0.5: tie, even
        [0x4b000001, 0x3f000000], // (2^23 + 1) + 0.5: tie, odd
        [0x3f800001, 0x3fc00000], // (1 + 2^-23) * 1.5: the product is an exact tie
        [0x3f800003, 0x3fc00000],
        // overflow: max + max, max * 2, max + half-ulp (tie at the top: rounds to infinity), just below that
        [0x7f7fffff, 0x7f7fffff],
        [0x7f7fffff, 0x40000000],
        [0x7f7fffff, 0x73000000],
        [0x7f7fffff, 0x72ffffff],
        [0xff7fffff, 0xff7fffff],
        // subnormal results: normal - normal, tiny * tiny, halving the smallest normal, subnormal + subnormal
        [0x00800001, 0x80800000],
        [0x00800000, 0x80000001],
        [0x1f800000, 0x1f800000],
        [0x00800000, 0x3f000000],
        [0x00800001, 0x3f000000], // half of the smallest normal + ulp: a subnormal tie
        [0x00000003, 0x3f000000], // 3 * 2^-149 / 2: a tie at the bottom, even: 2 * 2^-149
        [0x00000001, 0x3f000000], // 2^-150: tie, even: +0
        [0x00000001, 0x3effffff], // just under: +0
        [0x00000001, 0x3f000001], // just over: 2^-149
        [0x80000001, 0x3f000000], // -2^-150: -0
        [0x007fffff, 0x00000001], // largest subnormal + smallest: the smallest normal
        [0x00400000, 0x00400000],
        [0x00000001, 0x00000001],
        // signed zeros and cancellation
        [0x00000000, 0x80000000],
        [0x80000000, 0x80000000],
        [0x3f800000, 0xbf800000],
        [0x80000000, 0x3f800000],
        // inf - inf, 0 * inf, NaN in
        [0x7f800000, 0xff800000],
        [0x7f800000, 0x7f800000],
        [0x00000000, 0x7f800000],
        [0x80000000, 0xff800000],
        [CANONICAL_NAN, 0x3f800000],
        [0xffc00000, 0x7f800000],
      ]
      const random = prng(3)
      // random ties: x + half an ulp of x (either sign), and products of a (2^23 + odd) significand with 1.5
      for (let i = 0; i < 200; i++) {
        const e = 1 + Math.floor(random() * 252)
        const x = ((e << 23) | Math.floor(random() * 0x800000)) >>> 0
        const halfUlp = e > 24 ? ((e - 24) << 23) >>> 0 : 1 << Math.max(0, e - 2)
        pairs.push([x, (halfUlp | (random() < 0.5 ? 0x80000000 : 0)) >>> 0])
        pairs.push([(x | 1) >>> 0, (((1 + Math.floor(random() * 253)) << 23) | 0x400000) >>> 0])
      }
      const A: Tensor = {bits: pairs.map(([x]) => x), shape: [pairs.length]}
      const B: Tensor = {bits: pairs.map(([, y]) => y), shape: [pairs.length]}
      for (const {kernel, run} of binaryKernels) {
        await expectSameAsWasm(kernel, [A, B], run)
        await expectSameAsWasm(kernel, [B, A], run)
      }
    })

    it('broadcasts like numpy: [B,H]+[H], scalar [], [1], [B,1], [1,H] with [B,1], rank 3 against rank 2', async () => {
      const random = prng(4)
      const t = (shape: number[]): Tensor => ({bits: normalFloats(random, shape.reduce((p, d) => p * d, 1)), shape})
      const cases: [number[], number[]][] = [
        [[5, 7], [7]],
        [[7], [5, 7]],
        [[5, 7], []],
        [[], [5, 7]],
        [[5, 7], [1]],
        [[5, 7], [5, 1]],
        [[1, 7], [5, 1]],
        [[2, 3, 4], [3, 1]],
        [[2, 1, 4], [3, 4]],
        [[4, 1, 3, 1], [1, 5, 1, 2]],
        [[1], []],
        [[], []],
        [[3, 9], [3, 9]],
        [[0, 3], [3]], // an empty output
      ]
      for (const [shapeA, shapeB] of cases) {
        const inputs = [t(shapeA), t(shapeB)]
        for (const {kernel, run} of binaryKernels) await expectSameAsWasm(kernel, inputs, run, '0x', ` ${JSON.stringify(shapeA)} x ${JSON.stringify(shapeB)}`)
      }
    })

    it('Reshape and Identity return the input bytes (as tf.reshape and the wasm Identity kernel do)', async () => {
      const random = prng(5)
      const x: Tensor = {bits: [...SPECIALS.map(canonical), ...normalFloats(random, 35)], shape: [4, 16]}
      await expectSameAsWasm('Reshape', [x], (v) => tf.reshape(v, [8, 2, 4]))
      await expectSameAsWasm('Reshape', [x], (v) => tf.reshape(v, [64]))
      await expectSameAsWasm('Identity', [x], (v) => tf.engine().runKernel('Identity', {x: v}) as tf.Tensor)
      // An element count that does not fit the data is caught even when the input shape is right.
      await expectRevert(execute('Reshape', [tensorBytes(x.bits)], [[4, 16]], [63]), 'ShapeMismatch', ['Reshape', [4, 16], [63]])
    })

    it('accepts Mul as another name for Multiply, and empty tensors in every kernel', async () => {
      const a = tensorBytes([0x3fc00000, 0x80000000])
      const b = tensorBytes([0x40000000, 0x3f800000])
      assert.equal(await execute('Mul', [a, b], [[2], [2]], [2]), tensorBytes([0x40400000, 0x80000000]))
      assert.equal(await execute('Multiply', [a, b], [[2], [2]], [2]), tensorBytes([0x40400000, 0x80000000]))
      for (const kernel of ['Relu', 'Neg', 'Reshape', 'Identity']) assert.equal(await execute(kernel, ['0x'], [[0, 4]], [0, 4]), '0x')
      assert.equal(await execute('Step', ['0x'], [[0]], [0], stepAttrs(0)), '0x')
      assert.equal(await execute('Add', ['0x', tensorBytes([1])], [[0], [1]], [0]), '0x')
    })

    it('isSupported names exactly the on-chain kernels', async () => {
      for (const kernel of ['Relu', 'Step', 'Neg', 'Add', 'Sub', 'Mul', 'Multiply', 'Reshape', 'Identity']) assert.equal(await read('isSupported', [kernel]), true, kernel)
      for (const kernel of ['', 'relu', 'RELU', 'Relu ', 'MatMul', 'BatchMatMul', 'Div', 'Input', 'LeakyRelu', 'Sigmoid']) assert.equal(await read('isSupported', [kernel]), false, kernel)
    })
  })

  describe('revert paths', () => {
    const one = tensorBytes([0x3f800000])
    const two = tensorBytes([0x3f800000, 0x40000000])

    it('UnsupportedKernel for anything that is not an on-chain kernel', async () => {
      await expectRevert(execute('MatMul', [one, one], [[1], [1]], [1]), 'UnsupportedKernel', ['MatMul'])
      await expectRevert(execute('', [one], [[1]], [1]), 'UnsupportedKernel', [''])
    })

    it('WrongInputCount for the wrong number of inputs or of input shapes', async () => {
      await expectRevert(execute('Add', [one], [[1]], [1]), 'WrongInputCount', ['Add', 2n, 1n, 1n])
      await expectRevert(execute('Add', [one, one], [[1]], [1]), 'WrongInputCount', ['Add', 2n, 2n, 1n])
      await expectRevert(execute('Relu', [one, one], [[1], [1]], [1]), 'WrongInputCount', ['Relu', 1n, 2n, 2n])
      await expectRevert(execute('Neg', [], [], []), 'WrongInputCount', ['Neg', 1n, 0n, 0n])
      await expectRevert(execute('Reshape', [one], [[1], [1]], [1]), 'WrongInputCount', ['Reshape', 1n, 1n, 2n])
    })

    it('TensorDataLength when an input holds more or fewer bytes than its shape needs', async () => {
      await expectRevert(execute('Relu', [two], [[3]], [3]), 'TensorDataLength', [0n, 12n, 8n])
      await expectRevert(execute('Add', [one, `${two}00`], [[1], [2]], [2]), 'TensorDataLength', [1n, 8n, 9n])
      assert.equal(await execute('Identity', [one], [[]], []), one) // a scalar is one element
      await expectRevert(execute('Identity', ['0x'], [[]], []), 'TensorDataLength', [0n, 4n, 0n])
      // A shape too large to hold: its element count saturates instead of overflowing.
      const huge = Array.from({length: 12}, () => 0xffffffff)
      await expectRevert(execute('Neg', [one], [huge], huge), 'TensorDataLength', [0n, 4n * 2n ** 64n, 4n])
    })

    it('NotBroadcastable when the shapes do not broadcast, or not to exactly outputShape', async () => {
      const six = tensorBytes([1, 2, 3, 4, 5, 6])
      await expectRevert(execute('Add', [six, two], [[2, 3], [2]], [2, 3]), 'NotBroadcastable', [[2, 3], [2], [2, 3]])
      await expectRevert(execute('Sub', [six, one], [[2, 3], [1]], [3, 2]), 'NotBroadcastable', [[2, 3], [1], [3, 2]])
      await expectRevert(execute('Multiply', [six, one], [[2, 3], [1]], [1, 2, 3]), 'NotBroadcastable', [[2, 3], [1], [1, 2, 3]])
      await expectRevert(execute('Add', [six, one], [[2, 3], []], [3]), 'NotBroadcastable', [[2, 3], [], [3]])
      await expectRevert(execute('Add', [one, one], [[1], [1]], [2]), 'NotBroadcastable', [[1], [1], [2]])
      // tfjs itself refuses the same pair
      assert.throws(() => wasmOutput([{bits: [1, 2, 3, 4, 5, 6], shape: [2, 3]}, {bits: [1, 2], shape: [2]}], (a, b) => tf.add(a, b)), /broadcast/)
    })

    it('ShapeMismatch when a unary output shape differs from its input shape, or Reshape/Identity change the count', async () => {
      await expectRevert(execute('Relu', [two], [[2]], [1, 2]), 'ShapeMismatch', ['Relu', [2], [1, 2]])
      await expectRevert(execute('Step', [two], [[2]], [2, 1], stepAttrs(0)), 'ShapeMismatch', ['Step', [2], [2, 1]])
      await expectRevert(execute('Neg', [one], [[1]], []), 'ShapeMismatch', ['Neg', [1], []])
      await expectRevert(execute('Identity', [two], [[2]], [3]), 'ShapeMismatch', ['Identity', [2], [3]])
      assert.equal(await execute('Reshape', [two], [[2]], [1, 2, 1]), two)
      assert.equal(await execute('Identity', [one], [[1]], []), one)
    })

    it("InvalidAttrs when Step's attrs are not abi.encode(uint32)", async () => {
      await expectRevert(execute('Step', [one], [[1]], [1], '0x'), 'InvalidAttrs', ['Step', '0x'])
      const long = encodeAbiParameters([{type: 'uint32'}, {type: 'uint32'}], [0, 0])
      await expectRevert(execute('Step', [one], [[1]], [1], long), 'InvalidAttrs', ['Step', long])
      const wide = encodeAbiParameters([{type: 'uint256'}], [2n ** 32n])
      await expectRevert(execute('Step', [one], [[1]], [1], wide), 'InvalidAttrs', ['Step', wide])
      // other kernels have no attrs that change their output: whatever the descriptor carries is ignored
      assert.equal(await execute('Relu', [one], [[1]], [1], long), one)
    })
  })

  describe('Float32 arithmetic against Math.fround', () => {
    it('add, sub, mul agree with Math.fround(a op b) on 36 000 random bit patterns (NaN as 0x7fc00000)', async () => {
      const random = prng(6)
      const ops = [
        {op: 0, name: 'add', f: (a: number, b: number) => a + b},
        {op: 1, name: 'sub', f: (a: number, b: number) => a - b},
        {op: 2, name: 'mul', f: (a: number, b: number) => a * b},
      ]
      for (let round = 0; round < 4; round++) {
        const a: number[] = []
        const b: number[] = []
        for (let i = 0; i < 3000; i++) {
          const x = edgyBits(random)
          a.push(x)
          const kind = random()
          // a third of the pairs share (almost) the exponent: cancellation and exact results
          if (kind < 0.33) b.push(((x ^ (random() < 0.5 ? 0x80000000 : 0)) + Math.floor(random() * 2 ** 26) - 2 ** 25) >>> 0)
          else if (kind < 0.4) b.push(normalFloats(random, 1)[0]!)
          else b.push(edgyBits(random))
        }
        const results = await Promise.all(ops.map(({op}) => read<readonly number[]>('batch', [op, a, b])))
        for (const [k, {name, f}] of ops.entries()) {
          for (let i = 0; i < a.length; i++) {
            const want = canonical(bitsOf(Math.fround(f(floatOf(a[i]!), floatOf(b[i]!)))))
            const got = results[k]![i]!
            if (got !== want) assert.fail(`${name}(${hex8(a[i]!)}, ${hex8(b[i]!)}): contract ${hex8(got)}, Math.fround ${hex8(want)}`)
          }
        }
      }
    })

    it('every pair of special values, and neg', async () => {
      const a = SPECIALS.flatMap((s) => SPECIALS.map(() => s))
      const b = SPECIALS.flatMap(() => SPECIALS)
      const [sums, differences, products] = await Promise.all([0, 1, 2].map((op) => read<readonly number[]>('batch', [op, a, b])))
      for (let i = 0; i < a.length; i++) {
        const x = floatOf(a[i]!)
        const y = floatOf(b[i]!)
        assert.equal(sums![i], canonical(bitsOf(x + y)), `add(${hex8(a[i]!)}, ${hex8(b[i]!)})`)
        assert.equal(differences![i], canonical(bitsOf(x - y)), `sub(${hex8(a[i]!)}, ${hex8(b[i]!)})`)
        assert.equal(products![i], canonical(bitsOf(x * y)), `mul(${hex8(a[i]!)}, ${hex8(b[i]!)})`)
      }
      for (const s of SPECIALS) assert.equal(await read('neg', [s]), canonical((s ^ 0x80000000) >>> 0), `neg(${hex8(s)})`)
      assert.equal(await read('add', [0x3f800000, 0x3f800000]), 0x40000000)
      assert.equal(await read('sub', [0x3f800000, 0x3f800000]), 0)
      assert.equal(await read('mul', [0xc0000000, 0x3f000000]), 0xbf800000)
    })
  })

  describe('gas', () => {
    it('a 4096-element Add, Multiply and Relu fit far inside a 30M block (printed)', async () => {
      const random = prng(7)
      const a = tensorBytes(normalFloats(random, 4096))
      const b = tensorBytes(normalFloats(random, 4096))
      const h = tensorBytes(normalFloats(random, 64))
      const cases: [string, Hex[], number[][], Hex][] = [
        ['Add', [a, b], [[64, 64], [64, 64]], '0x'],
        ['Add', [a, h], [[64, 64], [64]], '0x'],
        ['Multiply', [a, b], [[64, 64], [64, 64]], '0x'],
        ['Relu', [a], [[64, 64]], '0x'],
        ['Step', [a], [[64, 64]], stepAttrs(0)],
        ['Reshape', [a], [[64, 64]], '0x'],
      ]
      const lines: string[] = []
      for (const [kernel, inputs, shapes, attrs] of cases) {
        const [, libraryGas] = await read<readonly [Hex, bigint]>('executeMetered', [kernel, inputs, shapes, [64, 64], attrs])
        const txGas = await publicClient.estimateContractGas({address: harness, abi: harnessArtifact.abi, functionName: 'execute', args: [kernel, inputs, shapes, [64, 64], attrs]})
        lines.push(`${kernel.padEnd(8)} ${JSON.stringify(shapes).padEnd(18)} library ${String(libraryGas).padStart(9)}  whole call ${String(txGas).padStart(9)}`)
        assert.ok(txGas < 10_000_000n, `${kernel} costs ${txGas} gas`)
      }
      console.log(`      4096-element gas:\n${lines.map((l) => `        ${l}`).join('\n')}`)
    })
  })
})
