// The honest lifecycle's gas under today's storage design and under the prototype of prototype.patch (README.md):
// one chain, the storage design's lifecycle twice (the first on fresh accounts, whose first credits open storage
// slots; the second on the same accounts), then each prototype's twice. Run by run.sh in a worktree where the
// patch is applied; mocha prints one line per lifecycle.
import assert from 'node:assert/strict'

import {type Abi, type Hex, parseEther, parseEventLogs, type TransactionReceipt} from 'viem'

import {taskMarketAbi} from '../../src/chain/generated/index.js'
import {waitForReceipt} from '../../src/chain/waitForReceipt.js'
import {type Actor, marketWrite, type TxResult, useChain} from '../../test/contracts/helpers/chain.js'
import {commitArgs, defaultSecret, defaultTask, driveTask, passWindows, secretHashOf, submitTask, verdictArgs} from '../../test/contracts/helpers/tasks.js'

/** The patched market's ABI, loosely typed: its prototype functions are not in the unpatched ABI. */
const abi = taskMarketAbi as unknown as Abi
type Sent = {receipt: TransactionReceipt; events: {eventName: string; args: Record<string, unknown>}[]}
const PHASES = ['submit', 'claim', 'commit', 'claimVerification', 'postVerdict', 'settle'] as const
const ONE_CALL_PHASES = ['submit', 'claim', 'commit', 'verify', 'settle'] as const

function line(label: string, receipts: TransactionReceipt[]): string {
  const total = receipts.reduce((sum, receipt) => sum + receipt.gasUsed, 0n)
  const phases = receipts.length === PHASES.length ? PHASES : ONE_CALL_PHASES
  return `${label.padEnd(40)} ${receipts.map((receipt, i) => `${phases[i]} ${receipt.gasUsed}`).join(' · ')} · lifecycle ${total}`
}

describe('gas of the honest lifecycle: storage design against a task kept as one hash', () => {
  const ctx = useChain({stake: parseEther('20')})

  /** Sends without the helpers' invariant checks, which read tasks with getTask (the prototypes store none). */
  async function send(actor: Actor, functionName: string, args: readonly unknown[], value?: bigint): Promise<Sent> {
    const hash = await actor.wallet.writeContract({address: ctx.system.market, abi, functionName, args, value, gas: 3_000_000n} as never)
    const receipt = await waitForReceipt(ctx.publicClient, {hash, label: functionName})
    assert.equal(receipt.status, 'success', `${functionName} reverted`)
    return {receipt, events: parseEventLogs({abi, logs: receipt.logs}) as unknown as Sent['events']}
  }

  async function storageLifecycle(): Promise<TransactionReceipt[]> {
    const {result: submitted, id} = await submitTask(ctx)
    const driven: TxResult[] = []
    await driveTask(ctx, id, 'Verified', {collect: driven})
    await passWindows(ctx, id)
    const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
    return [submitted, ...driven, settled].map((result) => result.receipt)
  }

  /**
   * One prototype's lifecycle: `suffix` T (the ABI struct) or P (10 packed words); `revealEnd` reads it from a state.
   * `oneCallVerification` (P only) claims the verification and posts the verdict in one call (`verifyP`).
   */
  async function hashLifecycle(suffix: 'T' | 'P', revealEnd: (state: unknown) => bigint, oneCallVerification = false): Promise<TransactionReceipt[]> {
    const {solver, verifier, other, submitter} = ctx.actors
    const stateOf = (sent: Sent) => {
      const event = sent.events.filter((candidate) => candidate.eventName === `TaskState${suffix === 'P' ? 'P' : ''}`).at(-1)
      assert.ok(event, 'no TaskState event')
      return suffix === 'P' ? event.args.words : event.args.task
    }
    const task = defaultTask
    const submitted = await send(submitter, `submitTask${suffix}`, [task.specHash, task.workUnits, task.maxSteps, task.maxPrice], task.escrow)
    const id = submitted.events.find((event) => event.eventName === 'TaskSubmitted')?.args.id as bigint
    const claimed = await send(solver, `claimTask${suffix}`, [id, stateOf(submitted), secretHashOf(defaultSecret)])
    await ctx.test.mine({blocks: 1})
    const [, root, manifest, count, interval, steps, sealed] = commitArgs(id)
    const committed = await send(solver, `commitProof${suffix}`, [id, stateOf(claimed), root, manifest, count, interval, steps, sealed])
    await ctx.test.mine({blocks: 1})
    const [, accepted, report, distance, segment, replay] = verdictArgs(id, true)
    const verifying = oneCallVerification
      ? undefined
      : await send(verifier, `claimVerification${suffix}`, [id, stateOf(committed)])
    const verdict = verifying
      ? await send(verifier, `postVerdict${suffix}`, [id, stateOf(verifying), accepted, report, distance, segment, replay])
      : await send(verifier, 'verifyP', [id, stateOf(committed), accepted, report, distance, segment, replay])
    const block = await ctx.publicClient.getBlockNumber()
    const end = revealEnd(stateOf(verdict))
    if (end >= block) await ctx.test.mine({blocks: Number(end - block) + 1})
    const settled = await send(other, `settle${suffix}`, [id, stateOf(verdict)])
    return [submitted, claimed, committed, verifying, verdict, settled].flatMap((sent) => (sent ? [sent.receipt] : []))
  }

  it('prints each design’s gas per call', async () => {
    const lines = [
      line('storage, fresh accounts', await storageLifecycle()),
      line('storage, the same accounts again', await storageLifecycle()),
    ]
    for (const round of [1, 2]) {
      lines.push(line(`one hash, ABI struct (${round})`, await hashLifecycle('T', (state) => (state as {revealEndBlock: bigint}).revealEndBlock)))
    }
    for (const round of [1, 2]) {
      // Word 9's low 40 bits (prototype.patch, `_packP`).
      lines.push(line(`one hash, 10 packed words (${round})`, await hashLifecycle('P', (state) => BigInt((state as Hex[])[9]!) & ((1n << 40n) - 1n))))
    }
    for (const round of [1, 2]) {
      lines.push(line(`one hash, packed, one-call verify (${round})`, await hashLifecycle('P', (state) => BigInt((state as Hex[])[9]!) & ((1n << 40n) - 1n), true)))
    }
    console.log(lines.join('\n'))
  })
})
