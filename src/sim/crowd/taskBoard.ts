import {type Address, type Hex, parseEventLogs, type PublicClient, zeroHash} from 'viem'

import {taskMarketAbi} from '../../chain/generated/index.js'

export type BoardStatus = 'Submitted' | 'Claimed' | 'Committed' | 'Verifying' | 'Verified' | 'Settled' | 'Expired'

/** One task as a crowd process knows it: only what the market's events said. */
export type BoardTask = {
  id: bigint
  submitter: Address
  specHash: Hex
  maxSteps: number
  status: BoardStatus
  solver?: Address
  claimBlock?: bigint
  proofRoot?: Hex
  manifestHash?: Hex
  checkpointCount?: number
  commitBlock?: bigint
  verifier?: Address
  accepted?: boolean
  verdictBlock?: bigint
  challengeEndBlock?: bigint
  openEndBlock?: bigint
  revealEndBlock?: bigint
  /** Solvers the market rejected on this task: they may not claim it again. */
  rejected: Set<string>
  /** Verifiers barred from it. */
  barred: Set<string>
  /** Games started on this task's verdicts: dispute id by challenger. */
  disputes: Map<string, bigint>
  /** Whether the last settlement accepted it. */
  settledAccepted?: boolean
}

/**
 * The market's tasks as one crowd process sees them, from its event logs read once per poll for every actor the
 * process hosts: hundreds of actors reading the chain each on its own would be hundreds of RPC calls a block.
 */
export type TaskBoard = {
  readonly tasks: Map<bigint, BoardTask>
  /** The chain head at the last read. */
  readonly head: bigint
  /** Reads the logs since the last read. */
  refresh(): Promise<void>
}

export function createTaskBoard(publicClient: PublicClient, market: Address, fromBlock: bigint): TaskBoard {
  const tasks = new Map<bigint, BoardTask>()
  let next = fromBlock
  let head = fromBlock
  return {
    tasks,
    get head() {
      return head
    },
    async refresh() {
      const latest = await publicClient.getBlockNumber({cacheTime: 0})
      if (latest < next) return
      const logs = await publicClient.getLogs({address: market, fromBlock: next, toBlock: latest})
      for (const log of parseEventLogs({abi: taskMarketAbi, logs})) apply(tasks, log)
      next = latest + 1n
      head = latest
    },
  }
}

type MarketLog = ReturnType<typeof parseEventLogs<typeof taskMarketAbi>>[number]

function apply(tasks: Map<bigint, BoardTask>, log: MarketLog): void {
  if (log.eventName === 'TaskSubmitted') {
    const {id, submitter, specHash, maxSteps} = log.args
    tasks.set(id, {id, submitter, specHash, maxSteps: Number(maxSteps), status: 'Submitted', rejected: new Set(), barred: new Set(), disputes: new Map()})
    return
  }
  const id = 'id' in log.args ? (log.args.id as bigint) : undefined
  const task = id === undefined ? undefined : tasks.get(id)
  if (!task) return
  switch (log.eventName) {
    case 'TaskClaimed':
      Object.assign(task, {status: 'Claimed', solver: log.args.solver, claimBlock: log.blockNumber})
      break
    case 'ProofCommitted':
      Object.assign(task, {status: 'Committed', proofRoot: log.args.proofRoot, manifestHash: log.args.manifestHash, checkpointCount: Number(log.args.checkpointCount), commitBlock: log.blockNumber})
      break
    case 'VerificationReopened':
      // No manifest named: the proof stays (a forced error's reveal names the honest proof's).
      Object.assign(task, {status: 'Committed', proofRoot: log.args.proofRoot, commitBlock: log.blockNumber}, log.args.manifestHash === zeroHash ? {} : {manifestHash: log.args.manifestHash})
      break
    case 'VerificationClaimed':
      Object.assign(task, {status: 'Verifying', verifier: log.args.verifier})
      break
    case 'VerdictPosted': {
      const {accepted, challengeEndBlock, openEndBlock, revealEndBlock} = log.args
      Object.assign(task, {status: 'Verified', accepted, verdictBlock: log.blockNumber, challengeEndBlock, openEndBlock, revealEndBlock})
      break
    }
    case 'TaskRejected':
      task.rejected.add(log.args.solver.toLowerCase())
      break
    case 'VerifierExcluded':
      task.barred.add(log.args.verifier.toLowerCase())
      break
    case 'TaskReopened':
      task.status = 'Submitted'
      break
    case 'DisputeStarted':
      task.disputes.set(log.args.challenger.toLowerCase(), log.args.disputeId)
      break
    case 'TaskSettled':
      task.status = 'Settled'
      task.settledAccepted = log.args.accepted
      break
    case 'TaskExpired':
      task.status = 'Expired'
      break
  }
}
