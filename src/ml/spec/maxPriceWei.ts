import {parseEther} from 'viem'

import type {JobSpec} from './schema.js'

/** The job's `payment.maxPrice` in wei per work unit. */
export function maxPriceWei(spec: Pick<JobSpec, 'payment'>): bigint {
  return parseEther(spec.payment.maxPrice)
}
