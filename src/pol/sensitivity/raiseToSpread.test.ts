import assert from 'node:assert/strict'
import type {CheckpointDistances} from '../distances/parameterDistances.js'
import {withinThresholds, type Thresholds} from '../distances/thresholds.js'
import {raiseToSpread} from './raiseToSpread.js'

const spread: CheckpointDistances = {
  whole: {l1: 0.5, l2: 0.02, linf: 1e-5, cosine: 3e-6},
  update: 0.4,
  perTensor: [
    {name: '0/dense/kernel', l1: 0.4, l2: 0.015, linf: 1e-5, cosine: 2e-6},
    {name: 'm/0/dense/kernel', l1: 1e-3, l2: 1e-4, linf: 2e-5, cosine: 0},
  ],
}

describe('raiseToSpread', () => {
  it('raises each set limit to margin x the spread where that is larger, and never lowers one', () => {
    const raised = raiseToSpread({l2: 1e-3, linf: 1e-3, update: 0.1, eachTensor: {linf: 1e-5}}, spread, 2)
    assert.equal(raised.l2, 0.04)
    assert.equal(raised.linf, 1e-3, 'twice the spread (2e-5) is under the limit: kept')
    assert.equal(raised.update, 0.8)
    assert.deepEqual(raised.perTensor, {'0/dense/kernel': {linf: 2e-5}, 'm/0/dense/kernel': {linf: 4e-5}})
    assert.deepEqual(raised.eachTensor, {linf: 1e-5})
  })

  it('leaves a metric the thresholds do not check unchecked, and a tensor without limits without them', () => {
    const raised = raiseToSpread({cosine: 1e-8, perTensor: {'m/0/dense/kernel': {l1: 1e-4}}}, spread, 1)
    assert.deepEqual(Object.keys(raised).sort(), ['cosine', 'perTensor'])
    assert.equal(raised.cosine, 3e-6)
    assert.deepEqual(raised.perTensor, {'m/0/dense/kernel': {l1: 1e-3}})
  })

  it('passes a distance as far as the spread, and fails one further', () => {
    const thresholds: Thresholds = {l2: 1e-3, eachTensor: {l2: 1e-5}}
    const raised = raiseToSpread(thresholds, spread, 1)
    const at = {...spread, whole: {...spread.whole}}
    assert.equal(withinThresholds(at, thresholds).ok, false)
    assert.deepEqual(withinThresholds(at, raised).violations, [])
    const beyond = {...spread, whole: {...spread.whole, l2: 0.021}}
    assert.deepEqual(withinThresholds(beyond, raised).violations, ['whole l2 0.021 > 0.02'])
  })
})
