import {taskMarketAbi} from '../../../chain/generated/index.js'
import {escrowFor} from '../../../ml/estimate/escrowFor.js'
import type {SignedConnection} from '../../../protocol/connect.js'
import {isRevert} from '../../../protocol/errors.js'
import type {MarketParams} from '../../../protocol/getMarketParams.js'
import {sendContractTransaction} from '../../../protocol/sendContractTransaction.js'
import {settleTask} from '../../../protocol/settleTask.js'
import type {CrowdContext, CrowdRoleFactory} from '../crowdContext.js'
import type {CrowdMember} from '../types.js'

/**
 * Posts its share of the crowd's tasks, keeping `open` of them unsettled at once, and settles its own tasks once
 * their reveal window has passed (again after each step of a challenge's game, until they leave Verified). Each task
 * pays at most the price ceiling of `market` (read once by the process), so any price the book posts will do.
 */
export function crowdSubmitter(quota: number, open: number, market: MarketParams): CrowdRoleFactory {
  return (connection, member, context) => {
    let posted = 0
    return async () => {
      await settleDue(connection, member, context)
      const mine = [...context.board.tasks.values()].filter((task) => task.submitter.toLowerCase() === member.address.toLowerCase())
      let unsettled = mine.filter((task) => task.status !== 'Settled' && task.status !== 'Expired').length
      while (posted < quota && unsettled < open && !context.signal.aborted) {
        await postTask(connection, member, context, market, posted)
        posted++
        unsettled++
        context.stats.posted++
      }
    }
  }
}

async function settleDue(connection: SignedConnection, member: CrowdMember, context: CrowdContext): Promise<void> {
  const {board, stats} = context
  for (const task of board.tasks.values()) {
    if (task.status !== 'Verified' || task.submitter.toLowerCase() !== member.address.toLowerCase() || board.head <= task.revealEndBlock!) continue
    try {
      await settleTask(connection, {taskId: task.id})
      stats.settles++
    } catch (error) {
      // A game still being played: settle again once it ends. Another party may have moved the task on first.
      if (!isRevert(error, 'DisputeInProgress', 'InvalidStatus', 'SettlementNotReady')) throw error
    }
  }
}

async function postTask(connection: SignedConnection, member: CrowdMember, context: CrowdContext, market: MarketParams, index: number): Promise<void> {
  const {crowd} = context
  const workUnits = BigInt(crowd.workUnits)
  const specHash = await connection.store.putJson({kind: 'synthetic-task', submitter: member.name, index, steps: crowd.steps, checkpointInterval: crowd.checkpointInterval, workUnits: crowd.workUnits})
  await sendContractTransaction(connection, {
    address: connection.contracts.market,
    abi: taskMarketAbi,
    functionName: 'submitTask',
    args: [specHash, workUnits, BigInt(crowd.steps), market.priceCeiling, 0n, []],
    value: escrowFor(workUnits, market.priceCeiling, market.verifierFeeBps),
  })
}
