import type {Address, Hex} from 'viem'

import {pinpointGameAbi, taskMarketAbi} from '../../../chain/generated/index.js'
import {getLogsPaged} from '../../../chain/getLogsPaged.js'
import type {ReportContext} from '../reportContext.js'

/** One dispute game: who played, how it ended, and what it cost. */
export type DisputeReport = {
  id: string
  taskId: string
  /** `challenge`: a whistleblower against the solver; `rejection`: the solver against its verifier. */
  kind: 'challenge' | 'rejection'
  prover: string
  challenger: string
  outcome: string
  /** Timeout, Arbitration, Committee or Void. */
  reason: string
  rounds: number
  /** Where the pinpoint landed: the disputed step, and the disputed trace element (0 when not narrowed). */
  step: number
  element: number
  /** Committee question (Graph, StateAssembly, Operator) or None; the kernel when arbitrated on chain. */
  question: string
  kernel: string | null
  committee: string[]
  /** Gas of the challenge (or rejection dispute), the settle that opened the game, and every game move. */
  gasUsed: string
  /** Chain-clock seconds from the challenge to the game's resolution. */
  seconds: number
}

const outcomeNames = ['None', 'ProverWon', 'ChallengerWon', 'BothWrong', 'Void'] as const
const questionNames = ['None', 'Graph', 'StateAssembly', 'Operator'] as const
const resolutionNames = ['Timeout', 'Arbitration', 'Committee', 'Void'] as const

/** Every dispute game the market started, read back from the game. */
export async function disputesSection(ctx: ReportContext): Promise<DisputeReport[]> {
  const {connection, deployBlock: fromBlock, nameOf} = ctx
  const client = connection.publicClient
  const started = await getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({address: connection.contracts.market, abi: taskMarketAbi, eventName: 'DisputeStarted', ...range}))
  if (started.length === 0) return []
  const game = connection.contracts.game ?? (await client.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'game'}))
  const [gameLogs, challenges, rejections] = await Promise.all([
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({address: game, abi: pinpointGameAbi, ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({address: connection.contracts.market, abi: taskMarketAbi, eventName: 'ChallengeQueued', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({address: connection.contracts.market, abi: taskMarketAbi, eventName: 'RejectionDisputed', ...range})),
  ])
  const gasOf = async (hashes: Iterable<Hex>) => {
    let gas = 0n
    for (const hash of new Set(hashes)) gas += (await client.getTransactionReceipt({hash})).gasUsed
    return gas
  }
  const timeOf = async (blockNumber: bigint) => (await client.getBlock({blockNumber})).timestamp
  const reports: DisputeReport[] = []
  for (const log of started) {
    const {id: taskId, disputeId, prover, challenger} = log.args
    if (taskId === undefined || disputeId === undefined || prover === undefined || challenger === undefined || log.blockNumber === null) continue
    const dispute = await client.readContract({address: game, abi: pinpointGameAbi, functionName: 'getDispute', args: [disputeId]})
    const own = gameLogs.filter((entry) => (entry.args as {id?: bigint}).id === disputeId)
    const resolved = own.find((entry) => entry.eventName === 'DisputeResolved')
    const arbitrated = own.find((entry) => entry.eventName === 'Arbitrated')
    const drawn = own.find((entry) => entry.eventName === 'CommitteeDrawn')
    // The challenge that led to this game: the challenger's own (a whistleblower) or the solver's rejection dispute.
    const opening = [...challenges.filter((entry) => entry.args.id === taskId && entry.args.whistleblower?.toLowerCase() === challenger.toLowerCase()), ...rejections.filter((entry) => entry.args.id === taskId && entry.args.solver?.toLowerCase() === prover.toLowerCase())]
      .filter((entry) => entry.blockNumber !== null && entry.blockNumber <= log.blockNumber!)
      .at(-1)
    const kind = opening?.eventName === 'RejectionDisputed' ? 'rejection' : 'challenge'
    const hashes = [log.transactionHash, ...own.map((entry) => entry.transactionHash), ...(opening ? [opening.transactionHash] : [])].filter((hash): hash is Hex => hash !== null)
    const startBlock = opening?.blockNumber ?? log.blockNumber
    const seconds = resolved?.blockNumber == null ? 0 : Number((await timeOf(resolved.blockNumber)) - (await timeOf(startBlock)))
    const resolvedArgs = (resolved?.args ?? {}) as {rounds?: number; reason?: number}
    reports.push({
      id: disputeId.toString(),
      taskId: taskId.toString(),
      kind,
      prover: nameOf(prover),
      challenger: nameOf(challenger),
      outcome: outcomeNames[dispute.outcome] ?? String(dispute.outcome),
      reason: resolvedArgs.reason === undefined ? 'unresolved' : (resolutionNames[resolvedArgs.reason] ?? String(resolvedArgs.reason)),
      rounds: resolvedArgs.rounds ?? dispute.rounds,
      step: Number(dispute.step),
      element: dispute.element,
      question: questionNames[dispute.question] ?? String(dispute.question),
      kernel: (arbitrated?.args as {kernel?: string} | undefined)?.kernel ?? null,
      committee: ((drawn?.args as {members?: readonly Address[]} | undefined)?.members ?? []).map(nameOf),
      gasUsed: (await gasOf(hashes)).toString(),
      seconds,
    })
  }
  return reports
}
