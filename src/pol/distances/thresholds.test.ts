import assert from 'node:assert/strict'
import {ThresholdsError} from './errors.js'
import {nonFiniteDistance, type CheckpointDistances} from './parameterDistances.js'
import {checkThresholdsCover, parseThresholds, withinThresholds} from './thresholds.js'

const d: CheckpointDistances = {
  whole: {l1: 1e-3, l2: 2e-5, linf: 5e-6, cosine: 1e-12},
  perTensor: [
    {name: 'k', l1: 8e-4, l2: 1e-5, linf: 5e-6, cosine: 2e-12},
    {name: 'm/k', l1: 1e-9, l2: 1e-10, linf: 1e-10, cosine: 1e-9},
  ],
}

describe('withinThresholds', () => {
  it('accepts distances at or under every limit and names each violation', () => {
    assert.deepEqual(withinThresholds(d, {l2: 2e-5, linf: 1e-5}), {ok: true, violations: []}, 'limits are inclusive')
    assert.deepEqual(withinThresholds(d, {l2: 1e-5, cosine: 1e-13}), {ok: false, violations: ['whole l2 2e-5 > 1e-5', 'whole cosine 1e-12 > 1e-13']})
  })

  it('judges the update-relative distance when a limit is set, and refuses one that was not measured', () => {
    assert.deepEqual(withinThresholds({...d, update: 0.01}, {update: 0.01}), {ok: true, violations: []})
    assert.deepEqual(withinThresholds({...d, update: 0.02}, {update: 0.01}), {ok: false, violations: ['whole update 0.02 > 0.01']})
    assert.deepEqual(withinThresholds({...d, update: nonFiniteDistance}, {update: 1e300}), {ok: false, violations: ['whole update non-finite > 1e+300']})
    assert.deepEqual(withinThresholds(d, {update: 0.01}), {ok: false, violations: ['whole update: not measured (no start checkpoint)']})
    assert.deepEqual(withinThresholds({...d, update: 5}, {l2: 1}), {ok: true, violations: []}, 'no limit, not judged')
    assert.deepEqual(checkThresholdsCover({update: 0.1, eachTensor: {l2: 1}}, {weights: ['k'], optimizer: ['m/k']}), {update: 0.1, eachTensor: {l2: 1}}, 'update alone covers the weights')
    assert.throws(() => parseThresholds({update: -1}), /^ThresholdsError: thresholds\.update: /)
  })

  it('judges each tensor by its own entry, else by eachTensor', () => {
    const t = {eachTensor: {cosine: 1e-10}, perTensor: {'m/k': {linf: 1e-11}}}
    assert.deepEqual(withinThresholds(d, t).violations, ['m/k linf 1e-10 > 1e-11'], 'perTensor replaces eachTensor for m/k')
    assert.deepEqual(withinThresholds(d, {eachTensor: {cosine: 1e-10}}).violations, ['m/k cosine 1e-9 > 1e-10'])
    assert.deepEqual(withinThresholds(d, {perTensor: {nope: {l1: 1}}}).violations, ['nope: no such tensor in the checkpoint'])
  })

  it('never accepts the saturated distance of non-finite values, whatever the limit', () => {
    const saturated: CheckpointDistances = {whole: {l1: nonFiniteDistance, l2: 0, linf: 0, cosine: 0}, perTensor: []}
    assert.deepEqual(withinThresholds(saturated, {l1: 1e308}).violations, ['whole l1 non-finite > 1e+308'])
    assert.equal(withinThresholds(saturated, {l1: Number.MAX_VALUE}).ok, false)
  })

  it('never accepts NaN or infinite distances', () => {
    const bad: CheckpointDistances = {whole: {l1: Number.NaN, l2: Number.NaN, linf: Number.POSITIVE_INFINITY, cosine: Number.NaN}, perTensor: []}
    const r = withinThresholds(bad, {l1: 1e300, linf: 1e300})
    assert.equal(r.ok, false)
    assert.deepEqual(r.violations, ['whole l1 NaN > 1e+300', 'whole linf Infinity > 1e+300'])
  })
})

describe('thresholds input', () => {
  it('parses limits and rejects malformed ones with the field path', () => {
    assert.deepEqual(parseThresholds({l2: 1e-4, perTensor: {k: {linf: 0}}}), {l2: 1e-4, perTensor: {k: {linf: 0}}})
    assert.throws(() => parseThresholds({l2: -1}), /^ThresholdsError: thresholds\.l2: /)
    assert.throws(() => parseThresholds({perTensor: {k: {l3: 1}}}), /thresholds\.perTensor\.k: /)
    assert.throws(() => parseThresholds({cosine: Number.POSITIVE_INFINITY}), /thresholds\.cosine/)
    assert.throws(() => parseThresholds('1e-4'), ThresholdsError)
  })

  it('requires limits covering the weights and every optimizer tensor (bad input, exit code 2)', () => {
    const tensors = {weights: ['k', 'b'], optimizer: ['m/k', 'm/b', 'v/k', 'v/b']}
    assert.throws(
      () => checkThresholdsCover(undefined, tensors),
      (error: unknown) => error instanceof ThresholdsError && error.exitCode === 2 && error.shortMessage === 'thresholds: expected distance limits for tolerance mode, got none',
    )
    assert.throws(() => checkThresholdsCover({}, tensors), /expected a whole-vector limit \(l1, l2, linf, cosine or update\) or limits for every weight, got none for k/)
    assert.throws(() => checkThresholdsCover({l2: 1}, tensors), /expected limits for the optimizer tensor m\/k \(set perTensor or eachTensor\), got none/)
    assert.throws(() => checkThresholdsCover({l2: 1, eachTensor: {}}, tensors), /optimizer tensor m\/k/)
    assert.throws(() => checkThresholdsCover({eachTensor: {l2: 1}, perTensor: {'0/dense/kernel': {l1: 1}}}, tensors), /thresholds\.perTensor: expected tensor names of this job \(k, b, m\/k, \.\.\.\), got "0\/dense\/kernel"/)
    assert.deepEqual(checkThresholdsCover({eachTensor: {l2: 1}}, tensors), {eachTensor: {l2: 1}})
    assert.deepEqual(checkThresholdsCover({l2: 1}, {weights: ['k'], optimizer: []}), {l2: 1})
    const perTensor = Object.fromEntries([...tensors.weights, ...tensors.optimizer].map((n) => [n, {linf: 1}]))
    assert.deepEqual(checkThresholdsCover({perTensor}, tensors), {perTensor})
  })
})
