import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {checkpointHash, CheckpointFormatError, decodeCheckpoint, encodeCheckpoint, type Checkpoint} from './index.js'

const sgd: Checkpoint = {
  step: 7,
  weights: [
    {name: '0/dense/kernel', shape: [2, 3], values: new Float32Array([1, -2, 0.5, 0, -0, 3.25])},
    {name: '0/dense/bias', shape: [3], values: new Float32Array([0.1, 0.2, 0.3])},
  ],
  optimizer: {type: 'sgd'},
}

const adam: Checkpoint = {
  step: 50,
  weights: [{name: 'w', shape: [2], values: new Float32Array([1, 2])}],
  optimizer: {
    type: 'adam',
    t: 50,
    beta1Power: Math.fround(0.9 ** 50),
    beta2Power: Math.fround(0.999 ** 50),
    m: [{name: 'm/w', shape: [2], values: new Float32Array([0.25, -0.5])}],
    v: [{name: 'v/w', shape: [2], values: new Float32Array([0.0625, 0.125])}],
  },
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

describe('checkpoint format', () => {
  it('lays out bytes exactly as docs/checkpoint-format.md says', () => {
    const tiny: Checkpoint = {step: 3, weights: [{name: 'ab', shape: [2], values: new Float32Array([1, -2])}], optimizer: {type: 'sgd'}}
    const bytes = encodeCheckpoint(tiny)
    const expected =
      '4753594e434b5054' + // "GSYNCKPT"
      '01000000' + // version 1
      '03000000' + // step 3
      '00000000' + // optimizer sgd
      '00000000' + // t
      '00000000' + // beta1Power
      '00000000' + // beta2Power
      '01000000' + // one tensor
      '02000000' + '61620000' + // name length 2, "ab" + 2 zero bytes of padding
      '01000000' + '02000000' + // rank 1, dims [2]
      '0000803f' + '000000c0' // 1.0, -2.0 little-endian float32
    assert.equal(hex(bytes), expected)
    assert.equal(checkpointHash(bytes), `0x${createHash('sha256').update(Buffer.from(expected, 'hex')).digest('hex')}`)
  })

  it('round-trips sgd and adam checkpoints, bit for bit', () => {
    for (const cp of [sgd, adam]) {
      const bytes = encodeCheckpoint(cp)
      const back = decodeCheckpoint(bytes)
      assert.deepEqual(back, cp)
      assert.deepEqual(encodeCheckpoint(back), bytes)
    }
    // -0 and NaN payloads keep their bits
    const odd = new Float32Array(3)
    new Uint32Array(odd.buffer).set([0x80000000, 0x7fc00001, 0xffbfffff])
    const cp: Checkpoint = {step: 0, weights: [{name: 'x', shape: [3], values: odd}], optimizer: {type: 'sgd'}}
    const back = decodeCheckpoint(encodeCheckpoint(cp)).weights[0]?.values as Float32Array
    assert.deepEqual([...new Uint32Array(back.buffer, back.byteOffset, 3)], [0x80000000, 0x7fc00001, 0xffbfffff])
  })

  it('hashes differ when one float bit differs', () => {
    const a = encodeCheckpoint(sgd)
    const flipped = structuredClone(sgd)
    const w = flipped.weights[1]?.values as Float32Array
    const bits = new Uint32Array(w.buffer)
    bits[2] = (bits[2] as number) ^ 1
    assert.notEqual(checkpointHash(a), checkpointHash(encodeCheckpoint(flipped)))
  })

  it('rejects non-canonical or malformed bytes', () => {
    const good = encodeCheckpoint(sgd)
    const mutate = (f: (b: Uint8Array, v: DataView) => void) => {
      const b = new Uint8Array(good)
      f(b, new DataView(b.buffer))
      return b
    }
    const cases: [string, Uint8Array, RegExp][] = [
      ['bad magic', mutate((b) => (b[0] = 0x58)), /checkpoint magic: expected "GSYNCKPT"/],
      ['unknown version', mutate((_, v) => v.setUint32(8, 2, true)), /checkpoint version: expected 1, got 2/],
      ['unknown optimizer', mutate((_, v) => v.setUint32(16, 7, true)), /expected 0 \(sgd\), 1 \(adam\) or 2 \(momentum\), got 7/],
      ['sgd with optimizer fields', mutate((_, v) => v.setUint32(20, 1, true)), /expected zero optimizer fields for sgd/],
      ['trailing bytes', new Uint8Array([...good, 0, 0, 0, 0]), /trailing data/],
      ['truncated', good.subarray(0, good.length - 1), /checkpoint truncated/],
      ['non-zero padding', mutate((b) => (b[36 + 4 + 14] = 1)), /expected zero padding/],
      ['empty', new Uint8Array(0), /checkpoint truncated/],
    ]
    for (const [what, bytes, message] of cases) assert.throws(() => decodeCheckpoint(bytes), (e: unknown) => e instanceof CheckpointFormatError && message.test(e.shortMessage), what)
    const badAdam = structuredClone(adam)
    if (badAdam.optimizer.type === 'adam') badAdam.optimizer.m = [{name: 'm/other', shape: [2], values: new Float32Array(2)}]
    assert.throws(() => encodeCheckpoint(badAdam), /optimizer.m\[0\]: expected m\/w/)
    assert.throws(() => encodeCheckpoint({...sgd, step: -1}), /step: expected a uint32, got -1/)
  })
})
