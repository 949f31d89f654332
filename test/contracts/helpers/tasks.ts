import assert from 'node:assert/strict'

import {type Address, encodeFunctionData, getAddress, type Hex, keccak256, parseEther, stringToHex} from 'viem'

import {roleRegistryAbi, taskMarketAbi} from '../../../src/chain/generated/index.js'
import {type Actor, type Chain, getTask, marketWrite, type TxResult, write} from './chain.js'
import {fixture} from './compileFixtures.js'

/** TaskMarket.Status, in declaration order. */
export const Status = {None: 0, Submitted: 1, Claimed: 2, Committed: 3, Verifying: 4, Verified: 5, Settled: 6, Expired: 7} as const

export const defaultTask = {
  specHash: keccak256(stringToHex('spec: mnist mlp')),
  escrow: parseEther('3'),
  solverReward: parseEther('1.5'),
  verifierReward: parseEther('0.5'),
  claimTimeout: 100n,
  trainingTimeout: 200n,
  verificationTimeout: 300n,
}
export const proof = {
  root: keccak256(stringToHex('proof root')),
  manifest: keccak256(stringToHex('manifest')),
  checkpoints: 5,
  report: keccak256(stringToHex('verification report')),
  /** The verdict's measured distance (1e18 = 1.0): 0.0125. */
  distance: 12_500_000_000_000_000n,
}

export type TaskOptions = Partial<typeof defaultTask> & {submitter?: Actor; market?: Address}

export async function submitTask(ctx: Chain, options: TaskOptions = {}): Promise<{id: bigint; result: TxResult}> {
  const t = {...defaultTask, ...options}
  const result = await marketWrite(
    ctx,
    options.submitter ?? ctx.actors.submitter,
    'submitTask',
    [t.specHash, t.solverReward, t.verifierReward, t.claimTimeout, t.trainingTimeout, t.verificationTimeout],
    {value: t.escrow, address: options.market},
  )
  const submitted = result.events.find((event) => event.eventName === 'TaskSubmitted')
  assert.ok(submitted, 'no TaskSubmitted event')
  return {id: submitted.args.id as bigint, result}
}

export type Stage = 'Submitted' | 'Claimed' | 'Committed' | 'Verifying' | 'Verified'

export type DriveOptions = {accepted?: boolean; distance?: bigint; solver?: Actor; verifier?: Actor; collect?: TxResult[]; market?: Address}

/**
 * Drives a fresh task to `stage` with the default actors (submitter, solver, verifier); `accepted` is the
 * verdict when the stage is Verified.
 */
export async function taskAt(ctx: Chain, stage: Stage, options: TaskOptions & DriveOptions = {}): Promise<bigint> {
  const results = options.collect ?? []
  const {id, result} = await submitTask(ctx, options)
  results.push(result)
  await driveTask(ctx, id, stage, {...options, collect: results})
  return id
}

/**
 * Drives an existing Submitted task (a fresh or a reopened one) to `stage`: claim, commit, claim
 * verification, verdict. Collects every transaction into `collect`.
 */
export async function driveTask(ctx: Chain, id: bigint, stage: Stage, options: DriveOptions = {}): Promise<void> {
  const results = options.collect ?? []
  if (stage === 'Submitted') return
  const solver = options.solver ?? ctx.actors.solver
  const verifier = options.verifier ?? ctx.actors.verifier
  const address = options.market
  results.push(await marketWrite(ctx, solver, 'claimTask', [id], {address}))
  if (stage === 'Claimed') return
  results.push(await marketWrite(ctx, solver, 'commitProof', [id, proof.root, proof.manifest, proof.checkpoints], {address}))
  if (stage === 'Committed') return
  await ctx.test.mine({blocks: 1})
  results.push(await marketWrite(ctx, verifier, 'claimVerification', [id], {address}))
  assert.equal(results.at(-1)?.receipt.status, 'success', 'claimVerification reverted')
  if (stage === 'Verifying') return
  results.push(await marketWrite(ctx, verifier, 'postVerdict', [id, options.accepted ?? true, proof.report, options.distance ?? proof.distance], {address}))
  for (const step of results) assert.equal(step.receipt.status, 'success', 'a set-up transaction reverted')
  const task = await getTask(ctx, id, address)
  assert.equal(task.status, Status.Verified)
}

// ------------------------------------------------------------------ ProxyActor (a contract account)

export type Proxy = {address: Address; owner: Actor}

/** Deploys a ProxyActor (test/contracts/fixtures) and tracks its balance and stake. */
export async function deployProxy(ctx: Chain, owner: Actor): Promise<Proxy> {
  const {abi, bytecode} = fixture('ProxyActor')
  const hash = await owner.wallet.deployContract({abi, bytecode})
  const receipt = await ctx.publicClient.waitForTransactionReceipt({hash, pollingInterval: 10})
  assert.ok(receipt.contractAddress)
  const address = getAddress(receipt.contractAddress)
  ctx.tracked.add(address)
  return {address, owner}
}

/** Makes the proxy call `target.functionName(args)` with `value` (sent along by the owner). */
export async function proxyCall(
  ctx: Chain,
  proxy: Proxy,
  target: Address,
  abi: typeof taskMarketAbi | typeof roleRegistryAbi,
  functionName: string,
  args: readonly unknown[],
  value = 0n,
): Promise<TxResult> {
  const data = encodeFunctionData({abi, functionName, args} as never) as Hex
  return write(ctx, proxy.owner, proxy.address, fixture('ProxyActor').abi, 'exec', [target, value, data], {value})
}

export async function proxySetAcceptEther(ctx: Chain, proxy: Proxy, accept: boolean): Promise<void> {
  await write(ctx, proxy.owner, proxy.address, fixture('ProxyActor').abi, 'setAcceptEther', [accept])
}

export async function proxySetReentry(ctx: Chain, proxy: Proxy, target: Address, data: Hex): Promise<void> {
  await write(ctx, proxy.owner, proxy.address, fixture('ProxyActor').abi, 'setReentry', [target, data])
}

export async function proxyRead(ctx: Chain, proxy: Proxy, functionName: string): Promise<unknown> {
  return ctx.publicClient.readContract({address: proxy.address, abi: fixture('ProxyActor').abi, functionName} as never)
}
