import {parseEther} from 'viem'
import type {JobSpec} from './schema.js'

export type Payment = {
  /** wei paid to the solver when the proof is accepted. */
  solverReward: bigint
  /** wei paid to the verifier that posts the verdict. */
  verifierReward: bigint
  /** wei escrowed with the task (`maxFee`, default the fee); the unspent part is refunded. */
  escrow: bigint
  /** Seconds each stage may take before anyone can expire it (`payment.deadline`). */
  timeoutSeconds: bigint
}

/**
 * The on-chain amounts of a job, in wei. fee = `payment.fee`, or `payment.pricePerStep` x
 * `training.steps`. verifierReward = floor(fee x round(verifierShare x 1e6) / 1e6) (the share is applied
 * in parts per million); solverReward = fee - verifierReward, so the two always add up to the fee.
 */
export function paymentFor(spec: JobSpec): Payment {
  const {fee, pricePerStep, maxFee, verifierShare, deadline} = spec.payment
  const total =
    fee !== undefined ? parseEther(fee) : pricePerStep !== undefined ? parseEther(pricePerStep) * BigInt(spec.training.steps) : 0n
  const ppm = BigInt(Math.round(verifierShare * 1_000_000))
  const verifierReward = (total * ppm) / 1_000_000n
  const escrow = maxFee !== undefined ? parseEther(maxFee) : total
  return {solverReward: total - verifierReward, verifierReward, escrow, timeoutSeconds: BigInt(deadline)}
}
