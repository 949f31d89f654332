import assert from 'node:assert/strict'
import type {SegmentReplay} from '../pol/index.js'
import {segmentRow} from './verificationView.js'

const distances = {whole: {l1: 0.3, l2: 0.0108, linf: 0.0068, cosine: 1.06e-6}, update: 0.2, perTensor: []}
const replay: SegmentReplay = {
  segment: 0,
  startStep: 0,
  endStep: 50,
  expected: `0x${'aa'.repeat(32)}`,
  actual: `0x${'bb'.repeat(32)}`,
  match: true,
  mode: 'tolerance',
  hashMatch: false,
  runtime: {backend: 'wasm', tfjs: '4.22.0'} as SegmentReplay['runtime'],
  distances,
  violations: [],
  seconds: 1.5,
}

describe('segmentRow', () => {
  it('says pass for a segment within the thresholds', () => {
    assert.deepEqual(segmentRow(replay), ['0', '0-50', 'differs', '1.08e-2', '6.80e-3', '1.06e-6', 'pass', '1.50'])
  })

  it('says a segment beyond the thresholds passed within its spread to the other runtimes', () => {
    const spread = {runtimes: ['cpu tfjs@4.22.0 kernels=tfjs-stock node@20.20.2'], margin: 2, distances}
    assert.equal(segmentRow({...replay, spread, beyondThresholds: ['whole l2 0.0108 > 0.00122']})[6], 'pass (within 2 x its spread to cpu)')
  })

  it('names the first violation of a failed segment', () => {
    assert.equal(segmentRow({...replay, match: false, violations: ['whole l2 0.39 > 0.022', 'whole linf 0.1 > 0.01']})[6], 'FAIL (whole l2 0.39 > 0.022)')
  })
})
