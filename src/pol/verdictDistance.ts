import type {VerificationReport} from './verifyProof.js'

/** Fixed-point scale of on-chain distances: 1e18 = 1.0. */
export const distanceScale = 10n ** 18n

/**
 * The distance a verifier posts with its verdict: the largest l∞ distance (the biggest absolute difference
 * of any one weight) between a replay and the committed checkpoint over every replayed segment, as a
 * 1e18 fixed-point integer. 0 means every replay matched bit for bit; no replay ran gives 0 as well.
 */
export function verdictDistance(report: Pick<VerificationReport, 'segments'>): bigint {
  const largest = Math.max(0, ...report.segments.map((segment) => segment.distances?.whole.linf ?? 0))
  // a replay against a checkpoint with NaN or infinite weights reports nonFiniteDistance (Number.MAX_VALUE):
  // post the largest uint256, and never a number the contract's uint256 cannot hold
  const fixed = toFixedPoint(largest)
  return fixed > maxUint256 ? maxUint256 : fixed
}

const maxUint256 = 2n ** 256n - 1n

/** A non-negative finite number as a 1e18 fixed-point integer, exact to the 16 significant digits a double holds. */
export function toFixedPoint(value: number): bigint {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`distance: expected a finite number >= 0, got ${value}`)
  if (value === 0) return 0n
  const [mantissa = '0', exponentText = '0'] = value.toExponential(15).split('e')
  const digits = BigInt(mantissa.replace('.', ''))
  const shift = Number(exponentText) - 15 + 18
  return shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift)
}
