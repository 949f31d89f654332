import {z} from 'zod'
import {ThresholdsError} from './errors.js'
import {nonFiniteDistance, type CheckpointDistances, type Distances} from './parameterDistances.js'

/** Upper limits on some of the four distances; an absent metric is not checked. */
export type DistanceLimits = {l1?: number | undefined; l2?: number | undefined; linf?: number | undefined; cosine?: number | undefined}

/**
 * How far a replayed checkpoint may be from the committed one in tolerance mode (docs/verification.md).
 *
 * - `l1`, `l2`, `linf`, `cosine`: limits on the whole weight vector (all weights concatenated in
 *   checkpoint order);
 * - `perTensor`: limits for named tensors: weights (`0/dense/kernel`) or adam state (`m/0/dense/kernel`,
 *   `v/0/dense/kernel`); an entry replaces `eachTensor` for that tensor;
 * - `eachTensor`: limits for every tensor `perTensor` does not name.
 *
 * A distance passes when it is <= its limit; NaN and nonFiniteDistance (vectors with NaN or infinite
 * values that differ) never pass.
 */
export type Thresholds = DistanceLimits & {
  /** Limit on the scale-free distance ‖replay - committed‖₂ / ‖committed - start‖₂ (whole weight vector). */
  update?: number | undefined
  perTensor?: Record<string, DistanceLimits> | undefined
  eachTensor?: DistanceLimits | undefined
}

export const distanceMetrics = ['l1', 'l2', 'linf', 'cosine'] as const
export type DistanceMetric = (typeof distanceMetrics)[number]

const limit = z.number().nonnegative().refine(Number.isFinite, {error: 'expected a finite number'})
const limitsShape = {l1: limit.optional(), l2: limit.optional(), linf: limit.optional(), cosine: limit.optional()}
export const distanceLimitsSchema = z.strictObject(limitsShape)
export const thresholdsSchema = z.strictObject({
  ...limitsShape,
  update: limit.optional(),
  perTensor: z.record(z.string().min(1), distanceLimitsSchema).optional(),
  eachTensor: distanceLimitsSchema.optional(),
})

/**
 * Validates thresholds read from JSON or YAML (limits finite and >= 0, no unknown keys).
 * @throws ThresholdsError `thresholds.<path>: <what was expected>`
 */
export function parseThresholds(value: unknown): Thresholds {
  const parsed = thresholdsSchema.safeParse(value)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const path = ['thresholds', ...(issue?.path ?? []).map(String)].join('.')
  throw new ThresholdsError(`${path}: ${issue?.message ?? 'malformed'}`)
}

const hasLimit = (l: DistanceLimits | undefined) => l !== undefined && distanceMetrics.some((m) => l[m] !== undefined)

/**
 * Checks that thresholds can judge a checkpoint with these tensors, so that tolerance mode leaves no
 * part of the state unchecked: at least one limit is set; every weight tensor is covered by a
 * whole-vector limit or a limit of its own; every optimizer tensor (adam's m/..., v/...) has a limit of
 * its own (`perTensor` or `eachTensor`), since the whole vector does not include them; `perTensor` names
 * only tensors of the job. Also validates the numbers ({@link parseThresholds}).
 *
 * @throws ThresholdsError naming the first problem
 */
export function checkThresholdsCover(thresholds: Thresholds | undefined, tensors: {weights: readonly string[]; optimizer: readonly string[]}): Thresholds {
  if (thresholds === undefined) throw new ThresholdsError('thresholds: expected distance limits for tolerance mode, got none')
  const parsed = parseThresholds(thresholds)
  const all = new Set([...tensors.weights, ...tensors.optimizer])
  for (const name of Object.keys(parsed.perTensor ?? {}))
    if (!all.has(name)) throw new ThresholdsError(`thresholds.perTensor: expected tensor names of this job (${[...all].slice(0, 3).join(', ')}, ...), got ${JSON.stringify(name)}`)
  const own = (name: string) => hasLimit(parsed.perTensor?.[name] ?? parsed.eachTensor)
  if (!hasLimit(parsed) && parsed.update === undefined) {
    const uncovered = tensors.weights.find((name) => !own(name))
    if (uncovered !== undefined)
      throw new ThresholdsError(`thresholds: expected a whole-vector limit (l1, l2, linf, cosine or update) or limits for every weight, got none for ${uncovered}`)
  }
  const bare = tensors.optimizer.find((name) => !own(name))
  if (bare !== undefined)
    throw new ThresholdsError(`thresholds: expected limits for the optimizer tensor ${bare} (set perTensor or eachTensor), got none`, {
      details: 'the whole-vector limits cover the weights only; without per-tensor limits the optimizer state would go unchecked',
    })
  return parsed
}

/** 4 significant digits; exponent form below 1e-3 and from 1e6 (e.g. `2e-5`, `0.0123`). */
function format(x: number): string {
  if (x === nonFiniteDistance) return 'non-finite'
  if (!Number.isFinite(x) || x === 0) return String(x)
  const r = Number(x.toPrecision(4))
  return Math.abs(r) < 1e-3 || Math.abs(r) >= 1e6 ? r.toExponential() : String(r)
}

function judge(where: string, d: Distances, limits: DistanceLimits | undefined, violations: string[]): void {
  if (limits === undefined) return
  for (const metric of distanceMetrics) {
    const max = limits[metric]
    const value = d[metric]
    // written so that NaN fails (NaN <= max is false); nonFiniteDistance fails whatever the limit
    if (max !== undefined && (!(value <= max) || value === nonFiniteDistance)) violations.push(`${where} ${metric} ${format(value)} > ${format(max)}`)
  }
}

/**
 * Judges distances against thresholds: the whole-vector limits against `d.whole`, each tensor's limits
 * (its `perTensor` entry, else `eachTensor`) against its own distances. A `perTensor` name with no
 * distances is a violation too (the thresholds are for another model).
 *
 * @returns ok, and one line per violation, e.g. `whole l2 0.0123 > 0.001`, `0/dense/kernel linf 3e-4 > 1e-5`
 */
export function withinThresholds(d: CheckpointDistances, thresholds: Thresholds): {ok: boolean; violations: string[]} {
  const violations: string[] = []
  judge('whole', d.whole, thresholds, violations)
  if (thresholds.update !== undefined) {
    const value = d.update
    if (value === undefined) violations.push('whole update: not measured (no start checkpoint)')
    else if (!(value <= thresholds.update) || value === nonFiniteDistance) violations.push(`whole update ${format(value)} > ${format(thresholds.update)}`)
  }
  const seen = new Set<string>()
  for (const t of d.perTensor) {
    seen.add(t.name)
    judge(t.name, t, thresholds.perTensor?.[t.name] ?? thresholds.eachTensor, violations)
  }
  for (const name of Object.keys(thresholds.perTensor ?? {})) if (!seen.has(name)) violations.push(`${name}: no such tensor in the checkpoint`)
  return {ok: violations.length === 0, violations}
}
