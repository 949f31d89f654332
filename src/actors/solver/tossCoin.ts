import {type Hex, zeroHash} from 'viem'

import {BaseError} from '../../errors/base.js'
import {toProtocolError} from '../../protocol/errors.js'
import {getTask} from '../../protocol/getTask.js'
import {forcedErrorCoin} from '../../protocol/marketActions.js'
import {readMarket} from '../../protocol/readMarket.js'
import type {Task} from '../../protocol/types.js'
import type {SolverRun} from './types.js'
import {warnOnce} from './warnOnce.js'

/**
 * The forced-error coin, tossed once the block after the claim exists: off-chain (only this solver knows the
 * secret), with the odds fixed at the claim, checked against the contract's own `forcedErrorOf`. Without a
 * saved secret no forced error can be honoured: the honest proof is committed. Undefined when there is no seed
 * to toss with (and so no commit).
 */
export async function tossCoin(run: SolverRun, task: Task, secret: Hex | undefined): Promise<boolean | undefined> {
  const seed = await seedForCommit(run, task)
  if (seed === undefined) return undefined
  if (!secret) return noCoin(run, task.id, 'no secret saved for this claim')
  const {connection} = run
  const forced = forcedErrorCoin({secret, seed, forcedErrorBps: task.forcedErrorBps})
  let onChain: boolean
  try {
    onChain = await readMarket(connection, 'forcedErrorOf', [task.id, secret])
  } catch (error) {
    throw toProtocolError('forcedErrorOf', error)
  }
  if (onChain !== forced) throw new BaseError(`task ${task.id}: forced-error coin: computed ${forced} from seed ${seed}, forcedErrorOf says ${onChain}`)
  run.emit({type: 'coin', taskId: task.id, forced})
  return forced
}

/**
 * The seed the commit will record: the one fixed on chain, else blockhash(claimBlock + 1) while the EVM still
 * returns it (a few blocks kept for the commit to be mined). Past that there is no seed and no commit: the
 * claim will time out (docs/security.md, finding 2), so this warns and gives up.
 */
async function seedForCommit(run: SolverRun, task: Task): Promise<Hex | undefined> {
  const {connection} = run
  const fixed = (await getTask(connection, {taskId: task.id})).seed
  if (fixed !== zeroHash) return fixed
  const seedBlock = task.claimBlock + 1n
  const latest = await connection.publicClient.getBlockNumber()
  if (latest + 4n <= seedBlock + 256n) return (await connection.publicClient.getBlock({blockNumber: seedBlock})).hash
  warnOnce(run, task.id, `the seed block ${seedBlock} is more than 256 blocks old and its hash was never recorded: the commit is impossible, the claim will time out`)
  return undefined
}

function noCoin(run: SolverRun, taskId: bigint, why: string): false {
  run.emit({type: 'warning', taskId, message: `${why}: committing the honest proof, a forced error cannot be honoured`})
  return false
}
