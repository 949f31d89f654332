import type {ChallengeClaim} from '../protocol/challengeCommitment.js'
import type {SignedConnection} from '../protocol/connect.js'
import {commitChallenge, openChallenge} from '../protocol/disputeActions.js'
import type {TransactionResult} from '../protocol/sendContractTransaction.js'
import type {Task} from '../protocol/types.js'
import {sleep} from '../util/sleep.js'

export type CommitAndOpenOptions = {
  /**
   * Resolves once the chain's head is at `block` or later. Default: poll the chain every `pollMs`; a test on a
   * manually mined chain mines instead.
   */
  untilBlock?: ((block: bigint) => Promise<void>) | undefined
  pollMs?: number | undefined
  signal?: AbortSignal | undefined
  /** Called once the commitment is on chain (the opening waits for the window). */
  onCommitted?: ((commit: TransactionResult & {index: bigint}) => void) | undefined
}

/**
 * Both halves of a challenge for one caller that can wait: commits in the challenge window, waits until the
 * window has closed (the head past `challengeEndBlock`: the opening is simulated against the head) and opens.
 * Returns the opening.
 */
export async function commitAndOpen(
  connection: SignedConnection,
  task: Pick<Task, 'id' | 'manifestHash' | 'proofRoot' | 'verdictBlock' | 'challengeEndBlock'>,
  claim: ChallengeClaim,
  options: CommitAndOpenOptions = {},
): Promise<TransactionResult & {index: bigint}> {
  const commit = await commitChallenge(connection, {task, claim})
  options.onCommitted?.(commit)
  return openWhenDue(connection, task, claim, options)
}

/** Opens a commitment once its challenge window has closed (waiting as {@link commitAndOpen} does). */
export async function openWhenDue(
  connection: SignedConnection,
  task: Pick<Task, 'id' | 'manifestHash' | 'proofRoot' | 'verdictBlock' | 'challengeEndBlock'>,
  claim: ChallengeClaim,
  options: Omit<CommitAndOpenOptions, 'onCommitted'> = {},
): Promise<TransactionResult & {index: bigint}> {
  const untilBlock = options.untilBlock ?? ((block: bigint) => pollUntilBlock(connection, block, options.pollMs ?? 250, options.signal))
  // The opening is simulated against the head before it is sent: the head itself must be in the open window.
  await untilBlock(task.challengeEndBlock + 1n)
  return openChallenge(connection, {task, claim})
}

async function pollUntilBlock(connection: Pick<SignedConnection, 'publicClient' | 'stallWatch'>, block: bigint, pollMs: number, signal: AbortSignal | undefined): Promise<void> {
  for (;;) {
    const head = await connection.publicClient.getBlockNumber()
    connection.stallWatch?.observe(head)
    if (head >= block || signal?.aborted) return
    await sleep(pollMs, signal)
  }
}
