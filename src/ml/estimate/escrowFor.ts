import {InvalidInputError} from '../../errors/base.js'

/**
 * The escrow a task needs at submission (docs/market.md, section 2):
 * ceil(workUnits * maxPrice * (10000 + verifierFeeBps) / 10000) wei, i.e. the solver's pay at the highest
 * price the submitter accepts plus the verifier's fee on top, rounded up so the escrow always covers both.
 *
 * @throws InvalidInputError on a negative amount or a fee that is not a whole number of basis points
 */
export function escrowFor(workUnits: bigint, maxPrice: bigint, verifierFeeBps: number): bigint {
  if (workUnits < 0n) throw new InvalidInputError(`workUnits: expected at least 0, got ${workUnits}`)
  if (maxPrice < 0n) throw new InvalidInputError(`maxPrice: expected at least 0 wei, got ${maxPrice}`)
  if (!Number.isInteger(verifierFeeBps) || verifierFeeBps < 0 || verifierFeeBps > 65535)
    throw new InvalidInputError(`verifierFeeBps: expected a whole number of basis points in [0, 65535], got ${verifierFeeBps}`)
  const numerator = workUnits * maxPrice * BigInt(10_000 + verifierFeeBps)
  return (numerator + 9_999n) / 10_000n
}
