import type {Hex} from 'viem'

import {averageCheckpoints, decodeCheckpoint, encodeCheckpoint} from '../../ml/checkpoint/index.js'
import {type JobSpec, roundTaskSpecs} from '../../ml/spec/index.js'
import {finalCheckpointOf, type ProofManifest} from '../../pol/index.js'
import type {SignedConnection} from '../../protocol/connect.js'
import {submitTask} from '../../protocol/submitTask.js'
import {settledWhole, type Task} from '../../protocol/types.js'
import {BaseError} from '../../errors/base.js'
import {adoptTasks} from '../adoptTasks.js'
import {followToSettlement} from './followToSettlement.js'
import {submittedTask} from './submittedTask.js'
import type {ShardRound, SubmitJobOptions, SubmittedTask} from './types.js'

export type ShardRoundsResult = {
  tasks: SubmittedTask[]
  finals: Task[]
  paid: bigint
  refunded: bigint
  rounds: ShardRound[]
  /** The last round's mean, once every round settled accepted: the delivered model. */
  delivered?: {hash: Hex; bytes: Uint8Array}
}

/**
 * A parallel split (`split.shards: K`, docs/market.md, section 4), run round by round: post the round's K tasks
 * (one per shard of the training data, all from the same start), follow them to settlement, and average their
 * verified final checkpoints into the next round's start, which goes to the store and into the next round's
 * specs (`split.start`). The last round's mean is the delivered model. A round with a task that did not settle
 * accepted over its whole range ends the job there: no later round is posted, nothing more is escrowed. Given
 * `taskIds` (a stopped submitter's, or a resumed devnet's), it walks the same rounds adopting those tasks in order,
 * so the job goes on where it stopped and nothing is posted twice.
 */
export async function runShardRounds(
  connection: SignedConnection,
  spec: JobSpec,
  options: Pick<SubmitJobOptions, 'signal' | 'onSubmitted' | 'onStatus' | 'onSettle' | 'onExpired' | 'taskIds'>,
): Promise<ShardRoundsResult> {
  const result: ShardRoundsResult = {tasks: [], finals: [], paid: 0n, refunded: 0n, rounds: []}
  const rounds = spec.split?.tasks ?? 1
  // A stopped submitter's tasks, in the order it posted them: each round adopts the next ones before posting more.
  const adoptable = [...(options.taskIds ?? [])]
  let start: Hex | undefined
  for (let round = 0; round < rounds && !options.signal?.aborted; round++) {
    const now = await connection.publicClient.getBlockNumber()
    const {tasks: posted, fromBlock} = await postRound(connection, roundTaskSpecs(spec, round, start), rounds, adoptable, now, options)
    const followed = await followToSettlement(connection, posted, fromBlock, options)
    result.tasks.push(...posted)
    result.finals.push(...followed.finals)
    result.paid += followed.paid
    result.refunded += followed.refunded
    const entry: ShardRound = {round, taskIds: posted.map((task) => task.taskId!), ...(start === undefined ? {} : {start})}
    result.rounds.push(entry)
    if (!followed.finals.every(settledWhole)) break
    const mean = await meanOfFinals(connection, followed.finals)
    entry.mean = mean.hash
    start = mean.hash
    if (round === rounds - 1) result.delivered = mean
  }
  return result
}

/**
 * Posts one round's tasks (no parent: each names its start in its spec) and tells each as it lands. A shard the
 * stopped submitter had posted already (the next of `adoptable`) is adopted instead: checked to be this account's
 * task with this shard's spec, then followed; `fromBlock` goes back to its submission for the ledgers.
 */
async function postRound(
  connection: SignedConnection,
  specs: readonly JobSpec[],
  rounds: number,
  adoptable: bigint[],
  now: bigint,
  options: Pick<SubmitJobOptions, 'onSubmitted'>,
): Promise<{tasks: SubmittedTask[]; fromBlock: bigint}> {
  const tasks: SubmittedTask[] = []
  let fromBlock = now
  for (const spec of specs) {
    const place = {copy: 0, index: spec.split?.index ?? 0, tasks: rounds, shard: spec.split?.shard ?? 0}
    const adopt = adoptable.shift()
    let task: SubmittedTask
    if (adopt === undefined) task = submittedTask(await submitTask(connection, {spec, parentId: 0n}), spec, place)
    else {
      const adopted = await adoptTasks(connection, [spec], 1, [adopt])
      task = {...adopted.tasks[0]!, ...place}
      if (adopted.fromBlock < fromBlock) fromBlock = adopted.fromBlock
    }
    tasks.push(task)
    options.onSubmitted?.(task)
  }
  return {tasks, fromBlock}
}

/** The mean of the round's verified final checkpoints (each read through the manifest its root commits to), stored. */
async function meanOfFinals(connection: SignedConnection, finals: readonly Task[]): Promise<{hash: Hex; bytes: Uint8Array}> {
  const checkpoints = []
  for (const task of finals) {
    const manifest = await connection.store.getJson<ProofManifest>(task.manifestHash)
    if (manifest.merkleRoot !== task.proofRoot)
      throw new BaseError(`task ${task.id}: the proof in the store is not the accepted one (root ${task.proofRoot}, store has ${manifest.merkleRoot})`)
    checkpoints.push(decodeCheckpoint(await connection.store.get(finalCheckpointOf(manifest).hash)))
  }
  const bytes = encodeCheckpoint(averageCheckpoints(checkpoints))
  return {hash: await connection.store.put(bytes), bytes}
}
