import assert from 'node:assert/strict'
import {permutation, prngStream} from './prngStream.js'

describe('prngStream', () => {
  it('matches known-answer words (independent Python: sha256(label || 0x00 || u64le(i)), uint32 LE words)', () => {
    const stream = prngStream('gensyn/test/v1')
    const words = Array.from({length: 10}, () => stream.nextU32())
    assert.deepEqual(words, [3217220720, 1174638738, 1439895909, 3926465515, 1199962832, 2465461798, 3301650225, 298577394, 3631064903, 2006103900])
  })

  it('gives units in [0, 1) with 24 bits, and different streams for different labels', () => {
    const a = prngStream('a')
    const b = prngStream('b')
    let same = 0
    for (let i = 0; i < 1000; i++) {
      const u = a.nextUnit()
      assert.ok(u >= 0 && u < 1 && Number.isInteger(u * 2 ** 24))
      if (u === b.nextUnit()) same++
    }
    assert.ok(same < 3)
  })

  it('shuffles: a permutation of [0, n) that depends on the stream', () => {
    const p = permutation(prngStream('x'), 1000)
    assert.deepEqual([...p].sort((x, y) => x - y), Array.from({length: 1000}, (_, i) => i))
    assert.notDeepEqual(p, permutation(prngStream('y'), 1000))
    assert.deepEqual(p, permutation(prngStream('x'), 1000))
  })
})
