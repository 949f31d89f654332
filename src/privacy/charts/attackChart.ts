import type {TopLevelSpec} from 'vega-lite'
import type {AttackPoint} from '../attack/attackCurve.js'

/** A mapping's attack curve: the points of every attacker run against it. */
export type MappingAttackCurve = {mapping: string; points: readonly AttackPoint[]}

/** Four significant digits: the chart's SVG stays the same across reruns whose errors differ in float noise. */
const rounded = (value: number): number => Number(value.toPrecision(4))

/**
 * Normalised reconstruction error against the number of leaked (raw, mapped) pairs, both axes logarithmic:
 * a line per mapping (colour) and attacker (dash). 1 is the mean image's error (the attack learned nothing
 * usable); a line diving towards 0 is a mapping that attacker has undone.
 */
export function attackChart(curves: readonly MappingAttackCurve[]): TopLevelSpec {
  const values = curves.flatMap(({mapping, points}) =>
    points.map((point) => ({mapping, attacker: point.attacker, pairs: point.pairs, error: Math.max(rounded(point.normalisedMse), 1e-5)})),
  )
  const x = {field: 'pairs', type: 'quantitative', title: 'known (raw, mapped) pairs', scale: {type: 'log'}} as const
  const y = {field: 'error', type: 'quantitative', title: 'normalised MSE (1 = mean image, 0 = exact)', scale: {type: 'log'}} as const
  const color = {field: 'mapping', type: 'nominal', title: 'mapping', sort: curves.map((curve) => curve.mapping)} as const
  const attacker = {field: 'attacker', type: 'nominal', title: 'attacker', sort: ['linear', 'local', 'mlp']} as const
  return {
    title: 'Known-plaintext attacks: reconstruction error vs leaked pairs',
    width: 560,
    height: 320,
    layer: [
      {
        data: {values},
        mark: {type: 'line', strokeWidth: 2},
        encoding: {x, y, color, strokeDash: attacker, detail: {field: 'attacker', type: 'nominal'}},
      },
      {
        data: {values},
        mark: {type: 'point', filled: true, size: 40},
        encoding: {x, y, color, shape: attacker},
      },
      {
        data: {values: [{error: 1}]},
        mark: {type: 'rule', color: '#999', strokeDash: [2, 2]},
        encoding: {y: {field: 'error', type: 'quantitative'}},
      },
    ],
  } as TopLevelSpec
}
