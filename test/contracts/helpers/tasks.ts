import assert from 'node:assert/strict'

import {type Address, zeroAddress, encodeAbiParameters, encodeFunctionData, getAddress, type Hex, keccak256, parseEther, stringToHex, zeroHash} from 'viem'

import {roleRegistryAbi, solverBookAbi, taskMarketAbi} from '../../../src/chain/generated/index.js'
import {merkleProof, merkleRoot} from '../../../src/ml/checkpoint/merkle.js'
import {chainStates, withTaskState} from '../../../src/protocol/taskState.js'
import type {MarketParams, WorkTableParams} from '../../../src/chain/deployContracts.js'
import {type Actor, backedCapacity, bookWrite, type Chain, configWrite, getTask, marketWrite, readTask, receiptOf, registryWrite, TEST_PRICE, testOffer, type TxResult, write} from './chain.js'
import {fixture} from './compileFixtures.js'

/** TaskMarket.Status, in declaration order. */
export const Status = {None: 0, Submitted: 1, Claimed: 2, Committed: 3, Verifying: 4, Verified: 5, Settled: 6, Expired: 7} as const
/** TaskMarket.ChallengeState and IPinpointGame.Outcome, in declaration order. */
export const ChallengeState = {Committed: 0, Queued: 1, Playing: 2, Done: 3} as const
export const Outcome = {None: 0, ProverWon: 1, ChallengerWon: 2, BothWrong: 3, Void: 4} as const

export const label = (text: string): Hex => keccak256(stringToHex(text))

/** What `submitTask` sends: the spec, its work units and steps, the most the submitter pays per work unit, its parent. */
export type Submission = {specHash: Hex; workUnits: bigint; maxSteps: bigint; maxPrice: bigint; parentId: bigint; escrow: bigint}

/** ceil(workUnits * maxPrice * (10000 + feeBps) / 10000): the escrow a submission needs (docs/market.md, 2). */
export const escrowOf = (workUnits: bigint, maxPrice: bigint, feeBps = 2000n): bigint => (workUnits * maxPrice * (10000n + feeBps) + 9999n) / 10000n

/**
 * The default task of the market tests: 250,000 work units over 40 steps (the default proof's) at the test chain's
 * frozen price of 1e13 wei per work unit (useChain's `testMarketParams`), escrow exactly the 3 ether the default
 * verifier fee (2000 bps) asks; the rest of the object is what the chain then records: rewards of 2.5 and 0.5 ether
 * for the whole range, and the timeouts (claim 100 s, training 100 + 250000 / 2500 = 200 s, verification 300 s).
 */
export const defaultTask = {
  specHash: label('spec: mnist mlp'),
  workUnits: 250_000n,
  maxSteps: 40n,
  maxPrice: TEST_PRICE,
  parentId: 0n,
  escrow: parseEther('3'),
  price: TEST_PRICE,
  solverReward: parseEther('2.5'),
  verifierReward: parseEther('0.5'),
  verifierFeeBps: 2000,
  claimTimeout: 100n,
  trainingTimeout: 200n,
  verificationTimeout: 300n,
}

/**
 * A committed proof: checkpoint hashes (step order), their sha256 Merkle root (src/ml/checkpoint/merkle.ts), the
 * manifest hash and the schedule (`checkpoints.length == ceil(totalSteps / interval) + 1`).
 */
export type Proof = {checkpoints: Hex[]; root: Hex; manifest: Hex; count: number; interval: bigint; totalSteps: bigint}

/** A proof of `count` checkpoints named after `name` (distinct names give distinct checkpoints and roots). */
export function makeProof(name: string, options: {count?: number; interval?: bigint; totalSteps?: bigint} = {}): Proof {
  const count = options.count ?? 5
  const interval = options.interval ?? 10n
  const totalSteps = options.totalSteps ?? interval * BigInt(count - 1)
  const checkpoints = Array.from({length: count}, (_, index) => label(`${name} checkpoint ${index}`))
  return {checkpoints, root: merkleRoot(checkpoints), manifest: label(`${name} manifest`), count, interval, totalSteps}
}

/** The honest proof every test solver commits unless told otherwise, with the verdict's report and distance. */
export const proof = {
  ...makeProof('honest'),
  report: label('verification report'),
  /** The verdict's measured distance (1e18 = 1.0): 0.0125. */
  distance: 12_500_000_000_000_000n,
}
/** What a rejecting verifier names by default: segment 1, and the end hash its replay produced. */
/** Every field of a task that belongs to one attempt, as getTask reads it before a claim or after a reopening. */
export const clearedAttempt = {
  solver: zeroAddress,
  verifier: zeroAddress,
  accepted: false,
  price: 0n,
  solverReward: 0n,
  verifierReward: 0n,
  commitBlock: 0n,
  checkpointCount: 0,
  proofRoot: zeroHash,
  secretHash: zeroHash,
  seed: zeroHash,
  claimBlock: 0n,
  checkpointInterval: 0n,
  totalSteps: 0n,
  forcedErrorBps: 0,
  forcedRevealed: false,
  verdictBlock: 0n,
  challengeEndBlock: 0n,
  openEndBlock: 0n,
  revealEndBlock: 0n,
  rejectSegment: 0,
  disputeFiled: false,
  nextChallenge: 0,
  rejectReplayHash: zeroHash,
  rejectStartHash: zeroHash,
  rejectEndHash: zeroHash,
  solverLocked: 0n,
  verifierLocked: 0n,
  activeDispute: 0n,
} as const

export const rejection = {segment: 1, replayHash: label('verifier replay of segment 1')}

export const defaultSecret = label('solver secret')
/** keccak256(abi.encode(secret)): what claimTask commits to. */
export const secretHashOf = (secret: Hex): Hex => keccak256(encodeAbiParameters([{type: 'bytes32'}], [secret]))
/** keccak256(abi.encode(honestRoot, honestManifestHash, secret)): commitProof's `sealedHonest`. */
export const sealOf = (honest: Proof, secret: Hex): Hex =>
  keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'bytes32'}, {type: 'bytes32'}], [honest.root, honest.manifest, secret]))
/** keccak256(abi.encode(secretHash, seed, sealedHonest)): what commitProof folds into the task's `secretHash` slot. */
export const commitmentOf = (secretHash: Hex, seed: Hex, sealedHonest: Hex): Hex =>
  keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'bytes32'}, {type: 'bytes32'}], [secretHash, seed, sealedHonest]))
/** keccak256(abi.encode(secret, seed)) % 10000 < bps: the forced-error coin. */
export const isForced = (secret: Hex, seed: Hex, bps: number): boolean =>
  BigInt(keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'bytes32'}], [secret, seed]))) % 10000n < BigInt(bps)

/** Checkpoints `segment` and `segment + 1` of `p` with their Merkle proofs, as challenge/disputeRejection take them. */
export function segmentOf(p: Proof, segment: number): {startHash: Hex; startProof: Hex[]; endHash: Hex; endProof: Hex[]} {
  return {
    startHash: p.checkpoints[segment] ?? zeroHash,
    startProof: segment < p.count ? merkleProof(p.checkpoints, segment) : [],
    endHash: p.checkpoints[segment + 1] ?? zeroHash,
    endProof: segment + 1 < p.count ? merkleProof(p.checkpoints, segment + 1) : [],
  }
}

/** The salt the tests' whistleblowers open their commitments with (an attacker's tests pass their own). */
export const testSalt = label('whistleblower salt')

/** keccak256(abi.encode(id, whistleblower, segment, claimed, salt)): what commitChallenge takes. */
export const challengeCommitmentOf = (id: bigint, whistleblower: Address, segment: number, claimed: Hex, salt: Hex = testSalt): Hex =>
  keccak256(
    encodeAbiParameters(
      [{type: 'uint256'}, {type: 'address'}, {type: 'uint32'}, {type: 'bytes32'}, {type: 'bytes32'}],
      [id, whistleblower, segment, claimed, salt],
    ),
  )

/** commitChallenge(...) arguments (no sealed claim: the contract only logs it). */
export function challengeCommitArgs(id: bigint, whistleblower: Address, segment: number, claimed: Hex, salt: Hex = testSalt) {
  return [id, challengeCommitmentOf(id, whistleblower, segment, claimed, salt), '0x'] as const
}

/** openChallenge(...) arguments: `claimed` is the whistleblower's replayed end hash. */
export function openArgs(id: bigint, p: Proof, segment: number, claimed: Hex, salt: Hex = testSalt) {
  const s = segmentOf(p, segment)
  return [id, segment, claimed, salt, s.startHash, s.startProof, s.endHash, s.endProof] as const
}

type Opening = {by: Actor; id: bigint; verdictBlock: bigint; args: ReturnType<typeof openArgs>; market: Address}
const unopened = new WeakMap<Chain, Opening[]>()

/**
 * An honest whistleblower's challenge, in two halves: commits now and keeps the opening, which
 * {@link openChallenges} sends once the challenge window has closed (toRevealWindow and passWindows do it first).
 */
export async function commitChallenge(ctx: Chain, by: Actor, id: bigint, p: Proof, segment: number, claimed: Hex, market: Address = ctx.system.market): Promise<TxResult> {
  const result = await marketWrite(ctx, by, 'commitChallenge', challengeCommitArgs(id, by.address, segment, claimed), {address: market})
  const {verdictBlock} = await getTask(ctx, id, market)
  unopened.set(ctx, [...(unopened.get(ctx) ?? []), {by, id, verdictBlock, args: openArgs(id, p, segment, claimed), market}])
  return result
}

/**
 * Opens, in commit order, the challenges {@link commitChallenge} kept for this verdict of task `id` that are still
 * unopened on chain: mines to the open window first. Openings kept for another verdict are dropped.
 */
export async function openChallenges(ctx: Chain, id: bigint, market: Address = ctx.system.market): Promise<TxResult[]> {
  const task = await getTask(ctx, id, market)
  const all = unopened.get(ctx) ?? []
  const due = all.filter((o) => o.id === id && o.market === market && o.verdictBlock === task.verdictBlock)
  unopened.set(ctx, all.filter((o) => !(o.id === id && o.market === market)))
  if (due.length === 0) return []
  // Only what is still unopened on chain (a test may open some itself; a rolled-back chain repeats ids and blocks).
  const queue = await ctx.publicClient.readContract({address: market, abi: taskMarketAbi, functionName: 'challengesOf', args: [id]})
  const committed = (o: Opening) => queue.some((c) => c.whistleblower === o.by.address && c.state === ChallengeState.Committed)
  await mineTo(ctx, task.challengeEndBlock)
  const results: TxResult[] = []
  for (const o of due.filter(committed)) results.push(await marketWrite(ctx, o.by, 'openChallenge', o.args, {address: market}))
  return results
}

/** disputeRejection(...) arguments for the rejected `segment` of `p`. */
export function disputeArgs(id: bigint, p: Proof, segment: number) {
  const s = segmentOf(p, segment)
  return [id, s.startHash, s.startProof, s.endHash, s.endProof] as const
}

/**
 * A submission's fields (default `defaultTask`'s). Changing workUnits or maxPrice without an escrow sends
 * `escrowOf(workUnits, maxPrice)`.
 */
export type TaskOptions = Partial<Submission> & {submitter?: Actor; market?: Address}

/** submitTask(...) arguments and value for `options` over `defaultTask`. */
export function submission(options: Partial<Submission> = {}): Submission {
  const t = {...defaultTask, ...options}
  const sized = options.workUnits !== undefined || options.maxPrice !== undefined
  return {...t, escrow: options.escrow ?? (sized ? escrowOf(t.workUnits, t.maxPrice) : t.escrow)}
}

export async function submitTask(ctx: Chain, options: TaskOptions = {}): Promise<{id: bigint; result: TxResult}> {
  const t = submission(options)
  const result = await marketWrite(
    ctx,
    options.submitter ?? ctx.actors.submitter,
    'submitTask',
    [t.specHash, t.workUnits, t.maxSteps, t.maxPrice, t.parentId],
    {value: t.escrow, address: options.market},
  )
  const submitted = result.events.find((event) => event.eventName === 'TaskSubmitted')
  assert.ok(submitted, 'no TaskSubmitted event')
  return {id: submitted.args.id as bigint, result}
}

export type Stage = 'Submitted' | 'Claimed' | 'Committed' | 'Verifying' | 'Verified'

export type DriveOptions = {
  accepted?: boolean
  distance?: bigint
  solver?: Actor
  verifier?: Actor
  collect?: TxResult[]
  market?: Address
  /** The solver's secret (default `defaultSecret`). */
  secret?: Hex
  /** The proof the solver commits (default `proof`). */
  published?: Proof
  /** The proof sealed in `sealedHonest` (default: the published one). */
  honest?: Proof
  /** A rejection's segment and replay hash (default `rejection`). */
  segment?: number
  replayHash?: Hex
  /** A child task's stacking arguments (default none). */
  start?: Start
}

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

/** A child task's stacking arguments: its first checkpoint and the Merkle proofs against both roots. */
export type Start = {checkpoint: Hex; proof: Hex[]; parentFinalProof: Hex[]}
export const noStart: Start = {checkpoint: zeroHash, proof: [], parentFinalProof: []}

/** The honest stacking of `child` on `parent`: `child`'s checkpoint 0 is `parent`'s last checkpoint. */
export function startOf(parent: Proof, child: Proof): Start {
  return {checkpoint: child.checkpoints[0]!, proof: merkleProof(child.checkpoints, 0), parentFinalProof: merkleProof(parent.checkpoints, parent.count - 1)}
}

/** A proof that continues `parent`: its checkpoint 0 is `parent`'s last, the rest named after `name`. */
export function childProof(parent: Proof, name: string, options: {count?: number; interval?: bigint; totalSteps?: bigint} = {}): Proof {
  const base = makeProof(name, options)
  const checkpoints = [parent.checkpoints[parent.count - 1]!, ...base.checkpoints.slice(1)]
  return {...base, checkpoints, root: merkleRoot(checkpoints)}
}

/** commitProof(...) arguments for `published`, sealing `honest` with `secret`; `start` for a task with a parent. */
export function commitArgs(id: bigint, published: Proof = proof, honest: Proof = published, secret: Hex = defaultSecret, start: Start = noStart) {
  return [
    id,
    published.root,
    published.manifest,
    published.count,
    published.interval,
    published.totalSteps,
    sealOf(honest, secret),
    {checkpoint: start.checkpoint, proof: start.proof, parentFinalProof: start.parentFinalProof},
  ] as const
}

/**
 * revealForcedError's arguments: the secret, the attempt's seed (as gensyn's reader takes it from ProofCommitted, or
 * `seed`) and the honest proof.
 */
export async function revealArgs(ctx: Chain, id: bigint, honest: Pick<Proof, 'root' | 'manifest'>, options: {secret?: Hex; seed?: Hex} = {}) {
  const seed = options.seed ?? (await readTask(ctx, id)).seed
  return [id, options.secret ?? defaultSecret, seed, honest.root, honest.manifest] as const
}

/** Sets the market parameters to the test chain's (`ctx.params.market`) with `change` over them. */
export async function setMarket(ctx: Chain, change: Partial<MarketParams>): Promise<TxResult> {
  return configWrite(ctx, ctx.actors.deployer, 'setMarketParams', [{...ctx.params.market, ...change}])
}

/** Sets the work table to the test chain's (`ctx.params.workTable`) with `change` over it. */
export async function setWorkTable(ctx: Chain, change: Partial<WorkTableParams>): Promise<TxResult> {
  return configWrite(ctx, ctx.actors.deployer, 'setWorkTable', [{...ctx.params.workTable, ...change}])
}

/**
 * Registers `actor` as a solver with `stake` and lists an offer in the book, so it can claim: `offer`, else the
 * test ask with as many tasks as `stake` backs at the default 1 ether solverStake (at least 1, at most 100).
 * `registry`/`book` for a system other than `ctx.system`.
 */
export async function registerSolver(
  ctx: Chain,
  actor: Actor,
  stake: bigint,
  options: {registry?: Address; book?: Address; offer?: {ask: bigint; capacity: number}} = {},
): Promise<void> {
  await registryWrite(ctx, actor, 'register', [1], {value: stake, address: options.registry})
  const offer = options.offer ?? {ask: testOffer.ask, capacity: backedCapacity(stake)}
  await bookWrite(ctx, actor, 'setOffer', [offer.ask, offer.capacity], {address: options.book})
}

/** postVerdict(...) arguments: an acceptance passes segment 0 and a zero hash, a rejection `rejection`'s. */
export function verdictArgs(id: bigint, accepted: boolean, options: {distance?: bigint; segment?: number; replayHash?: Hex} = {}) {
  return [
    id,
    accepted,
    proof.report,
    options.distance ?? proof.distance,
    accepted ? 0 : (options.segment ?? rejection.segment),
    accepted ? zeroHash : (options.replayHash ?? rejection.replayHash),
  ] as const
}

/**
 * Drives an existing Submitted task (a fresh or a reopened one) to `stage`: claim (committing to the secret),
 * a block for the seed, commit, a block for the randomness, claim verification, verdict. Collects every
 * transaction into `collect`.
 */
export async function driveTask(ctx: Chain, id: bigint, stage: Stage, options: DriveOptions = {}): Promise<void> {
  const results = options.collect ?? []
  if (stage === 'Submitted') return
  const solver = options.solver ?? ctx.actors.solver
  const address = options.market
  const secret = options.secret ?? defaultSecret
  results.push(await marketWrite(ctx, solver, 'claimTask', [id, secretHashOf(secret)], {address}))
  if (stage === 'Claimed') return
  await ctx.test.mine({blocks: 1})
  const published = options.published ?? proof
  results.push(await marketWrite(ctx, solver, 'commitProof', commitArgs(id, published, options.honest ?? published, secret, options.start), {address}))
  if (stage === 'Committed') return
  await verifyTask(ctx, id, stage, options)
}

/** From Committed: a block for the randomness, claim verification, and (stage Verified) the verdict. */
export async function verifyTask(ctx: Chain, id: bigint, stage: 'Verifying' | 'Verified', options: DriveOptions = {}): Promise<void> {
  const results = options.collect ?? []
  const verifier = options.verifier ?? ctx.actors.verifier
  const address = options.market
  await ctx.test.mine({blocks: 1})
  results.push(await marketWrite(ctx, verifier, 'claimVerification', [id], {address}))
  assert.equal(results.at(-1)?.receipt.status, 'success', 'claimVerification reverted')
  if (stage === 'Verifying') return
  results.push(await marketWrite(ctx, verifier, 'postVerdict', verdictArgs(id, options.accepted ?? true, options), {address}))
  for (const step of results) assert.equal(step.receipt.status, 'success', 'a set-up transaction reverted')
  const task = await getTask(ctx, id, address)
  assert.equal(task.status, Status.Verified)
}

// ------------------------------------------------------------------ blocks

/** Mines until the head is at least `block`: the next transaction lands in `block + 1` or later. */
export async function mineTo(ctx: Chain, block: bigint): Promise<void> {
  const head = await ctx.publicClient.getBlockNumber({cacheTime: 0})
  if (block > head) await ctx.test.mine({blocks: Number(block - head)})
}

/** Past the challenge window: the next transaction lands in the open window's first block. */
export async function toOpenWindow(ctx: Chain, id: bigint, market?: Address): Promise<void> {
  await mineTo(ctx, (await getTask(ctx, id, market)).challengeEndBlock)
}

/** Opens the kept challenges, then past the open window: the next transaction lands in the reveal window's first block. */
export async function toRevealWindow(ctx: Chain, id: bigint, market?: Address): Promise<TxResult[]> {
  const opened = await openChallenges(ctx, id, market)
  await mineTo(ctx, (await getTask(ctx, id, market)).openEndBlock)
  return opened
}

/** Opens the kept challenges, then past the reveal window: the next transaction may settle. */
export async function passWindows(ctx: Chain, id: bigint, market?: Address): Promise<TxResult[]> {
  const opened = await openChallenges(ctx, id, market)
  await mineTo(ctx, (await getTask(ctx, id, market)).revealEndBlock)
  return opened
}

// ------------------------------------------------------------------ ProxyActor (a contract account)

export type Proxy = {address: Address; owner: Actor}

/** Deploys a ProxyActor (test/contracts/fixtures) and tracks its balance and stake. */
export async function deployProxy(ctx: Chain, owner: Actor): Promise<Proxy> {
  const {abi, bytecode} = fixture('ProxyActor')
  const hash = await owner.wallet.deployContract({abi, bytecode})
  const receipt = await receiptOf(ctx.publicClient, hash)
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
  abi: typeof taskMarketAbi | typeof roleRegistryAbi | typeof solverBookAbi,
  functionName: string,
  args: readonly unknown[],
  value = 0n,
): Promise<TxResult> {
  const withState = abi === taskMarketAbi ? await withTaskState(chainStates({client: ctx.publicClient, market: target}), functionName, args) : args
  const data = encodeFunctionData({abi, functionName, args: withState} as never) as Hex
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
