import type {Address} from 'viem'

import type {Connection} from './connect.js'
import type {Dispute, DisputePhase} from './disputeTypes.js'
import {disputeCount, getDispute} from './getDispute.js'

export type ListDisputesOptions = {
  /** Only disputes in which this account is the prover or the challenger. */
  party?: Address | undefined
  /** Only disputes over this task. */
  taskId?: bigint | undefined
  /** Only unresolved disputes (phase other than Resolved). */
  open?: boolean | undefined
  phases?: readonly DisputePhase[] | undefined
}

/** Every dispute of the game, oldest first (ids from 1), optionally filtered. */
export async function listDisputes(connection: Pick<Connection, 'publicClient' | 'contracts'>, options: ListDisputesOptions = {}): Promise<Dispute[]> {
  const count = await disputeCount(connection)
  const ids = Array.from({length: Number(count)}, (_, index) => BigInt(index + 1))
  const disputes = await Promise.all(ids.map((id) => getDispute(connection, {disputeId: id})))
  const party = options.party?.toLowerCase()
  return disputes.filter(
    (dispute) =>
      (party === undefined || dispute.prover.toLowerCase() === party || dispute.challenger.toLowerCase() === party) &&
      (options.taskId === undefined || dispute.taskId === options.taskId) &&
      (!options.open || dispute.phase !== 'Resolved') &&
      (options.phases === undefined || options.phases.includes(dispute.phase)),
  )
}
