import {getAddress} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import {InvalidInputError} from '../errors/base.js'
import {type JobSpec, specHash as hashSpec} from '../ml/spec/index.js'
import {taskStepRange} from '../ml/train/index.js'
import type {SignedConnection} from '../protocol/connect.js'
import type {SubmittedTask} from './submitJob/types.js'
import {getLogsPaged} from '../chain/getLogsPaged.js'

export type AdoptedTasks = {
  tasks: SubmittedTask[]
  /** The block of the first submission: where the tasks' ledgers start. */
  fromBlock: bigint
}

/**
 * The tasks of a job posted earlier by this account (a `submit --wait` that was stopped before they settled, or
 * a devnet resumed with --state), checked against the job: copy c's task i is the id at position
 * c * tasks + i, posted by this account, with task i's spec hash and task i - 1 as its parent. Following them is
 * then exactly what the first `submit --wait` would have gone on to do.
 */
export async function adoptTasks(connection: SignedConnection, specs: readonly JobSpec[], copies: number, taskIds: readonly bigint[]): Promise<AdoptedTasks> {
  const expected = copies * specs.length
  if (taskIds.length !== expected) {
    throw new InvalidInputError(`--task-ids: expected ${expected} task ids (${copies} ${copies === 1 ? 'copy' : 'copies'} x ${specs.length} ${specs.length === 1 ? 'task' : 'tasks'} of the job), got ${taskIds.length}`)
  }
  // From the deployment when the connection knows it (devnet.json, a network file), in pages an RPC that limits
  // log ranges accepts.
  const logs = await getLogsPaged(connection.publicClient, {fromBlock: connection.deployBlock ?? 0n}, (range) => connection.publicClient.getContractEvents({
    address: connection.contracts.market,
    abi: taskMarketAbi,
    eventName: 'TaskSubmitted',
    args: {id: [...taskIds]},
    ...range,
  }))
  const me = getAddress(connection.account.address)
  const tasks: SubmittedTask[] = []
  let fromBlock: bigint | undefined
  for (const [position, taskId] of taskIds.entries()) {
    const index = position % specs.length
    const spec = specs[index]!
    const log = logs.find((candidate) => candidate.args.id === taskId)
    if (!log || log.blockNumber === null || log.transactionHash === null) throw new InvalidInputError(`--task-ids: task ${taskId} was never submitted on this market`)
    const {args} = log
    if (args.submitter === undefined || getAddress(args.submitter) !== me) throw new InvalidInputError(`--task-ids: task ${taskId} was submitted by ${args.submitter ?? 'nobody'}, expected this account ${me}`)
    if (args.specHash !== hashSpec(spec)) throw new InvalidInputError(`--task-ids: task ${taskId} has spec ${args.specHash ?? 'none'}, expected task ${index + 1} of this job (${hashSpec(spec)})`)
    const parentId = index === 0 ? 0n : taskIds[position - 1]!
    if (args.parentId !== parentId) throw new InvalidInputError(`--task-ids: task ${taskId} starts from task ${args.parentId ?? 0n}, expected ${parentId}`)
    const receipt = await connection.publicClient.getTransactionReceipt({hash: log.transactionHash})
    tasks.push({
      taskId: taskId.toString(),
      copy: Math.floor(position / specs.length),
      index,
      tasks: specs.length,
      parentId: parentId.toString(),
      specHash: args.specHash,
      steps: taskStepRange(spec),
      workUnits: (args.workUnits ?? 0n).toString(),
      escrow: (args.escrow ?? 0n).toString(),
      transactionHash: log.transactionHash,
      gasUsed: receipt.gasUsed.toString(),
    })
    fromBlock = fromBlock === undefined || log.blockNumber < fromBlock ? log.blockNumber : fromBlock
  }
  return {tasks, fromBlock: fromBlock ?? 0n}
}

/** `--task-ids 3,4`: decimal ids separated by commas. */
export function parseTaskIds(value: string): bigint[] {
  if (!/^\s*\d+\s*(,\s*\d+\s*)*$/.test(value)) throw new InvalidInputError(`--task-ids: expected task ids separated by commas (e.g. 3,4), got "${value}"`)
  return value.split(',').map((id) => BigInt(id.trim()))
}
