import {type Abi, decodeFunctionData, type Hex} from 'viem'

import {pinpointGameAbi, protocolConfigAbi, roleRegistryAbi, solverBookAbi, taskMarketAbi, thresholdRegistryAbi} from '../../chain/generated/index.js'
import type {MinedTransaction} from '../scanTransactions.js'
import type {Reader} from './readMarketLog.js'
import {type GasByPhase, type GasPhase, gasPhases} from './types.js'

/** Which phase each protocol function's transaction belongs to; anything else is `other`. */
const phaseOfFunction: Record<string, GasPhase> = {
  submitTask: 'submission',
  claimTask: 'claim',
  commitProof: 'commit',
  claimVerification: 'verification',
  postVerdict: 'verification',
  commitChallenge: 'challenge/dispute',
  openChallenge: 'challenge/dispute',
  disputeRejection: 'challenge/dispute',
  revealForcedError: 'challenge/dispute',
  settle: 'settlement',
  expire: 'settlement',
}

/**
 * Gas per phase over the run: every scanned transaction to one of the protocol's contracts, by the function it
 * called (every PinpointGame move is the dispute's; a reverted transaction counts too: its gas was spent).
 * Staking, offers and set-up are `other`.
 */
export async function readGasByPhase(connection: Reader, transactions: readonly MinedTransaction[]): Promise<GasByPhase> {
  const client = connection.publicClient
  const game = connection.contracts.game ?? (await client.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'game'}))
  const abis = new Map<string, Abi>([
    [connection.contracts.market.toLowerCase(), taskMarketAbi],
    [game.toLowerCase(), pinpointGameAbi],
    [connection.contracts.registry.toLowerCase(), roleRegistryAbi],
    ...(connection.contracts.book ? [[connection.contracts.book.toLowerCase(), solverBookAbi] as const] : []),
    ...(connection.contracts.config ? [[connection.contracts.config.toLowerCase(), protocolConfigAbi] as const] : []),
    ...(connection.contracts.thresholds ? [[connection.contracts.thresholds.toLowerCase(), thresholdRegistryAbi] as const] : []),
  ])
  const totals = new Map<GasPhase, {gas: bigint; transactions: number}>(gasPhases.map((phase) => [phase, {gas: 0n, transactions: 0}]))
  for (const transaction of transactions) {
    const abi = transaction.to ? abis.get(transaction.to.toLowerCase()) : undefined
    if (!abi) continue
    const phase = abi === pinpointGameAbi ? 'challenge/dispute' : (phaseOfFunction[functionName(abi, transaction.input) ?? ''] ?? 'other')
    const total = totals.get(phase)!
    total.gas += transaction.gasUsed
    total.transactions++
  }
  return gasPhases.map((phase) => ({phase, gas: totals.get(phase)!.gas.toString(), transactions: totals.get(phase)!.transactions}))
}

function functionName(abi: Abi, data: Hex): string | undefined {
  try {
    return decodeFunctionData({abi, data}).functionName
  } catch {
    return undefined
  }
}
