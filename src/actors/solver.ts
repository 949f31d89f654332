import {randomBytes} from 'node:crypto'

import {concat, type Hex, keccak256, toHex, zeroHash} from 'viem'

import {cheat, type StrategyName} from '../adversary/index.js'
import {forcedErrorProof} from '../adversary/forcedError.js'
import {taskMarketAbi} from '../chain/generated/index.js'
import {trainJobWithOperatorCorruption} from '../dispute/corruptOperator.js'
import {createDisputeAgent, type DisputeAgentEvent} from '../dispute/createDisputeAgent.js'
import type {OperatorCorruption} from '../dispute/types.js'
import {BaseError} from '../errors/base.js'
import {runtimeIdString, selectBackend} from '../ml/backend/index.js'
import {estimateWork} from '../ml/estimate/estimateWork.js'
import type {JobSpec} from '../ml/spec/index.js'
import {TrainingAbortedError, trainJob, taskStepRange, type TrainResult} from '../ml/train/index.js'
import {finalCheckpointOf, type ProofManifest, stackedProof} from '../pol/index.js'
import {disputeTaskRejection} from '../protocol/disputeActions.js'
import {ensureRegistered} from '../protocol/ensureRegistered.js'
import {ContractRevertError, isRevert, toProtocolError} from '../protocol/errors.js'
import {getTask} from '../protocol/getTask.js'
import {getMarketParams, getMarketState, getOffer, getWorkTable, setOffer, withdrawOffer} from '../protocol/solverBook.js'
import {listTasks} from '../protocol/listTasks.js'
import {loadTaskSpec} from '../protocol/loadTaskSpec.js'
import {
  claimTask,
  commitProof,
  fixSeed,
  forcedErrorCoin,
  revealForcedError,
  type SettleOutcome,
  sealHonest,
  secretHashOf,
} from '../protocol/marketActions.js'
import type {Task} from '../protocol/types.js'
import {chainTime} from './chainTime.js'
import {type ChainNow, type RoleLoopOptions, runRoleLoop, type ExpireReport} from './runRoleLoop.js'
import {loopPollMs} from './loopPollMs.js'
import {sleep} from '../util/sleep.js'
import {readSolverState, type SolverProof, type SolverState, writeSolverState} from './solverState.js'

/** How a solver plays a dispute over its proof (`solve --dispute-stance`, docs/adversaries.md). */
export const solverDisputeStances = ['honest', 'defend', 'staller'] as const
export type SolverDisputeStance = (typeof solverDisputeStances)[number]

/**
 * A claimed task still training this many blocks after its claim records its forced-error seed (fixSeed): well
 * inside the EVM's 256-block window, late enough that short trainings commit first and never pay for it.
 */
export const SEED_FIX_AFTER_BLOCKS = 64n

export type SolverEvent =
  | {type: 'ready'; address: Hex; runtime: string; disputeStance: SolverDisputeStance; ask: bigint; capacity: number}
  /** It listed its offer (joined the market): the price read was at least its ask. */
  | {type: 'offer-listed'; ask: bigint; capacity: number; price: bigint}
  /** It withdrew its offer (left): the price read was below its ask, or it is leaving (`leaveAfterSeconds`). */
  | {type: 'offer-withdrawn'; ask: bigint; price: bigint; reason: 'price' | 'leaving'}
  | {type: 'claimed'; taskId: bigint; claimBlock: bigint; gasUsed: bigint; price: bigint}
  | {type: 'resumed'; taskId: bigint; step: number}
  /** `step` is the job's absolute step; the task trains `from` .. `steps` (a split task's range). */
  | {type: 'progress'; taskId: bigint; step: number; steps: number; from: number; loss: number}
  /** A checkpoint stored (and written to the state file, so a restart resumes from it). */
  | {type: 'checkpoint'; taskId: bigint; step: number; hash: Hex}
  /** The forced-error coin, computed off-chain and checked against `forcedErrorOf`. */
  | {type: 'coin'; taskId: bigint; forced: boolean}
  /** A long training recorded its seed before the EVM forgot the seed block (TaskMarket.fixSeed). */
  | {type: 'seed-fixed'; taskId: bigint; block: bigint; gasUsed: bigint}
  | {
      type: 'committed'
      taskId: bigint
      proofRoot: Hex
      manifestHash: Hex
      checkpoints: number
      /** Steps trained (fewer than the range when the job stopped early). */
      totalSteps: number
      trainingSeconds: number
      runtime: string
      gasUsed: bigint
      /** Set when the proof was made by an adversary strategy. */
      strategy?: StrategyName
      /** Set when the committed proof is a forced error: the honest proof it sealed. */
      sealedHonestRoot?: Hex
    }
  | {type: 'revealed'; taskId: bigint; honestRoot: Hex; gasUsed: bigint}
  | {type: 'rejection-disputed'; taskId: bigint; segment: number; gasUsed: bigint}
  | {type: 'settle'; taskId: bigint; gasUsed: bigint; outcome: SettleOutcome}
  | {type: 'dispute'; event: DisputeAgentEvent}
  | {type: 'warning'; taskId: bigint; message: string}
  | {type: 'lost-race'; taskId: bigint; reason: string}
  /** It expired another solver's claimed task past its training deadline (the task is back in the pool). */
  | ({type: 'expired'} & ExpireReport)
  /** It is leaving the market (`leaveAfterSeconds`): no new claims; it exits once its task is done. */
  | {type: 'leaving'; afterSeconds: number}

export type SolverOptions = RoleLoopOptions<SolverEvent> & {
  /** Wait this long after first seeing an open task before claiming it (a slower-reacting solver). */
  claimDelayMs?: number | undefined
  /** An adversary strategy from src/adversary (docs/adversaries.md); `honest` (the default) trains for real. */
  strategy?: StrategyName | undefined
  /** Default: `honest` for the honest strategy, `defend` for a cheat. */
  disputeStance?: SolverDisputeStance | undefined
  /** A staller answers this many dispute rounds, then stops (default 1). */
  stallAfterRounds?: number | undefined
  /** Test only: the dispute agent lies about one operator's output (docs/adversaries.md). */
  corruption?: OperatorCorruption | undefined
  /** Its ask in wei per work unit (docs/market.md, section 3). Default: the protocol's price floor, so it never leaves. */
  ask?: bigint | undefined
  /**
   * Tasks at once it lists in its offer (default 1). The loop trains one task at a time: with N > 1 it claims
   * its next task only once the book counts fewer than N active, but never trains two at once.
   */
  capacity?: number | undefined
  /** The supply shock: after this many seconds it withdraws its offer, finishes its current task and returns. */
  leaveAfterSeconds?: number | undefined
}

export type SolvedTask = {taskId: bigint; proofRoot: Hex; manifestHash: Hex; checkpoints: number; totalSteps: number; trainingSeconds: number; forced: boolean}

/** Claim reverts that mean "not now" (another solver was first, or the price or the book moved): try again later. */
const notNowErrors = ['InvalidStatus', 'DeadlinePassed', 'NotListed', 'AtCapacity', 'AskAbovePrice', 'PriceAboveMax', 'ParentNotSettled'] as const
/** Claim reverts that hold for good for this solver and task. */
const neverErrors = ['SolverRejected', 'EscrowExhausted', 'ParentStoppedEarly'] as const

/**
 * A fresh 32-byte secret per claim: it and the block after the claim decide the forced-error coin. A seeded
 * solver derives it from its seed and the task, so a replayed run commits the same secrets.
 */
function freshSecret(seed: Hex | undefined, taskId: bigint): Hex {
  return seed === undefined ? toHex(randomBytes(32)) : keccak256(concat([seed, toHex(taskId, {size: 32})]))
}

/**
 * The solver's role loop: take an open task (committing to a fresh secret), train it with proof checkpoints,
 * toss the forced-error coin, commit the proof (a deliberately wrong one when forced, with the honest one
 * sealed), reveal a forced error after the challenge window, dispute a rejection of an honest proof, play
 * its disputes with the dispute agent, and pump settle on its verified tasks. A task it had claimed before a
 * crash is resumed from its last stored checkpoint; the secret is in the state file, so it can still reveal.
 */
export async function runSolver(options: SolverOptions): Promise<SolvedTask[]> {
  const {connection, signal} = options
  const emit = options.onEvent ?? (() => {})
  const me = connection.account.address
  const strategy = options.strategy ?? 'honest'
  // A cheat (or a test's corrupted training) stands behind its wrong proof unless told otherwise.
  const stance: SolverDisputeStance = options.disputeStance ?? (strategy === 'honest' && !options.corruption ? 'honest' : 'defend')
  // Tasks another solver claimed first (the list we read may still show them open for a block), with the
  // block of the loss; a task reopened later (a timeout, a rejection) is taken again. `never`: not ever.
  const lostRaces = new Map<bigint, bigint>()
  const never = new Set<bigint>()
  const capacity = options.capacity ?? 1
  const started = performance.now()
  // What the last read of the book said: the price, whether we are listed, and how many tasks it counts active.
  let book = {price: 0n, listed: false, active: 0}
  // Whether each open task's declared work units cover our own estimate of its spec (a cheap-looking task is not).
  const honestWork = new Map<bigint, boolean>()
  let announcedLeaving = false
  // Set once a leaving solver's offer is off the book: only then may its loop return.
  let left = false
  // When each open task was first seen, for claimDelayMs.
  const firstSeen = new Map<bigint, number>()
  // Warnings already shown, so a retried duty does not repeat itself every poll.
  const warned = new Set<string>()
  let lastDuties = 0

  const agent = createDisputeAgent({
    connection,
    store: connection.store,
    // A proof trained with a corruption is defended with the corrupted computation (TEST ONLY).
    stance: options.corruption ? 'corrupt' : stance,
    stallAfterRounds: options.stallAfterRounds ?? 1,
    corruption: options.corruption,
    serveCommittee: false,
    seed: options.seed,
    onEvent: (event) => emit({type: 'dispute', event}),
  })

  const runtime = await selectBackend(options.backend)
  // The book lists no more tasks than the stake backs (capacity * solverStake, docs/market.md section 3).
  await ensureRegistered(connection, 'solver', capacity)
  const ask = options.ask ?? (await getMarketParams(connection)).priceFloor
  // The table a task's declared work is checked against: read once, like the price floor above.
  const workTable = await getWorkTable(connection)
  emit({type: 'ready', address: me, runtime: runtimeIdString(runtime), disputeStance: stance, ask, capacity})

  return runRoleLoop({
    options,
    isOwnVerified: (task) => task.solver === me && task.status === 'Verified',
    async pick(tasks, now, mayTakeMore) {
      const held = tasks.find((task) => task.solver === me && task.status === 'Claimed' && now.timestamp <= task.deadline)
      if (held) return {task: held, held: true}
      for (const task of tasks) if (task.status === 'Submitted' && !firstSeen.has(task.id)) firstSeen.set(task.id, performance.now())
      // docs/market.md, section 3: only while listed, below capacity, with ask <= price.
      if (!mayTakeMore || leaving() || !book.listed || book.active >= capacity || book.price < ask) return undefined
      const waited = (task: Task) => performance.now() - (firstSeen.get(task.id) ?? 0) >= (options.claimDelayMs ?? 0)
      for (const task of tasks) {
        if (task.status !== 'Submitted' || never.has(task.id) || now.timestamp > task.deadline || !waited(task)) continue
        if ((lostRaces.get(task.id) ?? -2n) + 1n >= now.number) continue
        // The submitter's ceiling: a task priced below the market waits for the price to come down.
        if (task.maxPrice < book.price) continue
        if (task.parentId !== 0n && !parentDone(task, tasks)) continue
        if (!(await declaresHonestWork(task))) continue
        return {task, held: false}
      }
      return undefined
    },
    work: solveTask,
    duties,
    onSettled: (report) => emit({type: 'settle', ...report}),
    onExpired: (report) => emit({type: 'expired', ...report}),
    // A claim that moved on under its training (expired and reassigned: InvalidSecret at the coin) must not stop
    // the loop; the other tasks go on.
    onTaskReverted: ({taskId, message}) => emit({type: 'warning', taskId, message}),
    finished: () => left,
    // A one-task run stays until its forced error is revealed: leaving would get an honest solver slashed.
    busy: async (tasks) => {
      for (const task of tasks) if (task.solver === me && (await revealPending(task))) return true
      return false
    },
  })

  async function revealPending(task: Task): Promise<boolean> {
    if (!['Committed', 'Verifying', 'Verified'].includes(task.status) || task.forcedRevealed) return false
    const state = await readSolverState(connection.stateDir, me, task.id)
    return state?.forced === true && state.revealed !== true && state.committed?.proofRoot === task.proofRoot
  }

  /** A split task may be claimed once its parent settled with its whole range (docs/market.md, section 4). */
  function parentDone(task: Task, tasks: readonly Task[]): boolean {
    const parent = tasks.find((other) => other.id === task.parentId)
    return parent !== undefined && parent.status === 'Settled' && parent.accepted && parent.totalSteps === parent.maxSteps
  }

  /**
   * A task is paid by the work units it declares: one that declares fewer than its spec needs (by our own
   * estimate with the protocol's table) would be trained at a loss, so it is skipped with a warning.
   */
  async function declaresHonestWork(task: Task): Promise<boolean> {
    const known = honestWork.get(task.id)
    if (known !== undefined) return known
    let verdict: boolean
    try {
      const estimate = estimateWork(await loadTaskSpec(connection, task), workTable)
      verdict = task.workUnits >= estimate.workUnits
      if (!verdict) warnOnce(task.id, `declares ${task.workUnits} work units, its spec needs ${estimate.workUnits} by our estimate: not claimed`)
    } catch (error) {
      if (!(error instanceof BaseError)) throw error
      verdict = false
      warnOnce(task.id, `its spec cannot be estimated (${error.shortMessage}): not claimed`)
    }
    honestWork.set(task.id, verdict)
    return verdict
  }

  function leaving(): boolean {
    return options.leaveAfterSeconds !== undefined && performance.now() - started >= options.leaveAfterSeconds * 1000
  }

  /**
   * The off-chain strategy of docs/market.md, section 3: list the offer while the price is at least the ask,
   * withdraw it (leave) after a price read below the ask, list it again (join) when the price is back, and
   * withdraw for good when leaving. The claim rules are read from the same book.
   */
  async function manageOffer(): Promise<void> {
    const [market, offer] = await Promise.all([getMarketState(connection), getOffer(connection, me)])
    book = {price: market.price, listed: offer.listed, active: Number(offer.active)}
    if (leaving()) {
      if (!announcedLeaving) {
        announcedLeaving = true
        emit({type: 'leaving', afterSeconds: options.leaveAfterSeconds ?? 0})
      }
      if (offer.listed) await withdraw('leaving')
      left = true
      return
    }
    if (offer.listed && market.price < ask) await withdraw('price')
    else if (!offer.listed && market.price >= ask) await list()
    // A restart with another ask or capacity updates the listing in place.
    else if (offer.listed && (offer.ask !== ask || Number(offer.capacity) !== capacity)) await setOffer(connection, {ask, capacity})

    async function withdraw(reason: 'price' | 'leaving'): Promise<void> {
      await withdrawOffer(connection)
      book.listed = false
      emit({type: 'offer-withdrawn', ask, price: market.price, reason})
    }
    async function list(): Promise<void> {
      await setOffer(connection, {ask, capacity})
      book.listed = true
      emit({type: 'offer-listed', ask, capacity, price: market.price})
    }
  }

  /** Every poll (and at checkpoints while training): the offer, reveals, rejection disputes and dispute rounds. */
  async function duties(tasks: Task[], now: ChainNow): Promise<void> {
    lastDuties = performance.now()
    await manageOffer()
    for (const task of tasks) {
      if (task.solver === me && task.status === 'Claimed') await fixSeedIfAging(task, now)
      if (task.solver !== me || task.status !== 'Verified') continue
      const state = await readSolverState(connection.stateDir, me, task.id)
      if (state?.forced && !state.revealed && !task.forcedRevealed && state.committed?.proofRoot === task.proofRoot) await reveal(task, state, now)
      else if (!task.accepted) await disputeIfWronged(task, state, now)
    }
    await agent.poll()
  }

  /**
   * A training that outlasts the EVM's 256-block memory of blockhash(claimBlock + 1) could no longer commit: once
   * SEED_FIX_AFTER_BLOCKS have passed, the seed is recorded on chain (one small transaction; short trainings
   * commit before and never pay it).
   */
  async function fixSeedIfAging(task: Task, now: ChainNow): Promise<void> {
    if (task.seed !== zeroHash || now.number < task.claimBlock + SEED_FIX_AFTER_BLOCKS) return
    try {
      const transaction = await fixSeed(connection, task.id)
      emit({type: 'seed-fixed', taskId: task.id, block: now.number, gasUsed: transaction.gasUsed})
    } catch (error) {
      if (!isRevert(error, 'SeedAlreadyFixed', 'InvalidStatus', 'RandomnessExpired')) throw error
      if (error.errorName === 'RandomnessExpired') warnOnce(task.id, 'the forced-error seed was forgotten before it was recorded: this claim can no longer commit and will time out')
    }
  }

  /** Runs the duties from inside a long training run (at checkpoints), at most once a poll interval. */
  async function dutiesDuringTraining(): Promise<void> {
    if (performance.now() - lastDuties < loopPollMs(options.pollMs, connection)) return
    await duties(await listTasks(connection), await chainTime(connection))
  }

  /**
   * In the reveal window (blocks openEndBlock + 1 .. revealEndBlock, after the whistleblowers opened their
   * challenges): shows the secret and the honest proof, whatever the verdict. A rejected forced error left
   * unrevealed would be slashed as a cheat.
   */
  async function reveal(task: Task, state: SolverState, now: ChainNow): Promise<void> {
    const opens = task.openEndBlock + 1n
    const closes = task.revealEndBlock
    // The transaction lands in a later block than the one read: wait until the simulation is in the window too.
    if (now.number < opens || now.number + 1n > closes) {
      if (now.number + 1n > closes) warnOnce(task.id, `reveal window closed at block ${closes} before the forced error could be revealed`)
      return
    }
    if (!state.secret || !state.honest) return warnOnce(task.id, 'forced error without a saved secret or honest proof: it cannot be revealed')
    try {
      const transaction = await revealForcedError(connection, task.id, {secret: state.secret, honestRoot: state.honest.proofRoot, honestManifestHash: state.honest.manifestHash})
      await save({...state, revealed: true})
      emit({type: 'revealed', taskId: task.id, honestRoot: state.honest.proofRoot, gasUsed: transaction.gasUsed})
    } catch (error) {
      if (!(error instanceof ContractRevertError)) throw error
      warnOnce(task.id, `revealForcedError: ${error.shortMessage} (retrying while the window is open)`)
    }
  }

  /**
   * A rejection is contested in the challenge window by a solver that believes its proof: an honest one, and
   * the test-only operator corruption (which defends its corrupted proof to the end); a staller disputes to
   * stall. A `defend` cheat knows it would lose the game and only answers challenges. A forced error is
   * never disputed: it is wrong on purpose, and the reveal clears it.
   */
  async function disputeIfWronged(task: Task, state: SolverState | undefined, now: ChainNow): Promise<void> {
    const standsBehind = stance === 'honest' || stance === 'staller' || options.corruption !== undefined
    if (!standsBehind || task.disputeFiled || now.number + 1n > task.challengeEndBlock) return
    // The proof it stands behind: the honest one of a forced error (on chain once revealed), else the one committed.
    const own = state?.forced ? state.honest : state?.committed
    if (own && own.proofRoot !== task.proofRoot) return
    try {
      const transaction = await disputeTaskRejection(connection, task)
      emit({type: 'rejection-disputed', taskId: task.id, segment: task.rejectSegment, gasUsed: transaction.gasUsed})
    } catch (error) {
      if (!(error instanceof ContractRevertError)) throw error
      if (error.errorName !== 'DisputeAlreadyFiled') warnOnce(task.id, `disputeRejection: ${error.shortMessage}`)
    }
  }

  function warnOnce(taskId: bigint, message: string): void {
    const key = `${taskId}:${message}`
    if (warned.has(key)) return
    warned.add(key)
    emit({type: 'warning', taskId, message})
  }

  async function save(state: SolverState): Promise<void> {
    await writeSolverState(connection.stateDir, me, state)
  }

  async function solveTask(task: Task, alreadyClaimed: boolean): Promise<SolvedTask | undefined> {
    if (!alreadyClaimed) {
      await ensureRegistered(connection, 'solver')
      // The secret is on disk before the claim is sent: a crash right after the claim must not lose it.
      const secret = freshSecret(options.seed, task.id)
      const live = (await listTasks(connection)).filter((other) => other.solver === me && !['Settled', 'Expired', 'Submitted'].includes(other.status))
      await writeSolverState(connection.stateDir, me, {taskId: task.id, checkpoints: [], secret}, live.map((other) => other.id))
      try {
        const claim = await claimTask(connection, task.id, secretHashOf(secret))
        emit({type: 'claimed', taskId: task.id, claimBlock: claim.claimBlock, gasUsed: claim.gasUsed, price: claim.price})
      } catch (error) {
        if (isRevert(error, ...notNowErrors, ...neverErrors)) {
          emit({type: 'lost-race', taskId: task.id, reason: error.errorName})
          if ((neverErrors as readonly string[]).includes(error.errorName)) never.add(task.id)
          else lostRaces.set(task.id, (await chainTime(connection)).number)
          return undefined
        }
        throw error
      }
    }
    const spec = await loadTaskSpec(connection, task)
    const saved = (await readSolverState(connection.stateDir, me, task.id)) ?? {taskId: task.id, checkpoints: []}
    let result: TrainResult
    try {
      if (options.corruption) result = await trainCorrupted(task, spec, options.corruption)
      else if (strategy === 'honest') result = await trainHonestly(task, spec, saved)
      else result = await trainCheat(task, spec, strategy)
    } catch (error) {
      // Interrupted: the checkpoints stored so far stay in the state file, and the next run resumes there.
      if (error instanceof TrainingAbortedError) return undefined
      throw error
    }
    if (signal?.aborted) return undefined
    return commit(await getTask(connection, task.id), result)
  }

  /** TEST ONLY: trains with one operator's output corrupted (src/dispute/corruptOperator.ts); no resume. */
  async function trainCorrupted(task: Task, spec: JobSpec, corruption: OperatorCorruption): Promise<TrainResult> {
    return trainJobWithOperatorCorruption({
      spec,
      store: connection.store,
      corruption,
      signal,
      onStep: (step, loss) => progress(task, spec, step, loss),
      onCheckpoint: () => dutiesDuringTraining(),
    })
  }

  function progress(task: Task, spec: JobSpec, step: number, loss: number): void {
    const {start, end} = taskStepRange(spec)
    emit({type: 'progress', taskId: task.id, step, steps: end, from: start, loss})
  }

  async function trainHonestly(task: Task, spec: JobSpec, saved: SolverState): Promise<TrainResult> {
    const stored = [...saved.checkpoints]
    const last = stored.at(-1)
    const resume = last ? {...last, checkpoints: [...stored]} : undefined
    if (resume) emit({type: 'resumed', taskId: task.id, step: resume.step})
    // A split task starts from its parent's final verified checkpoint (docs/market.md, section 4).
    const parent = task.parentId === 0n ? undefined : await parentManifest(task)
    return trainJob({
      spec,
      store: connection.store,
      backend: options.backend,
      signal,
      resume,
      start: parent ? {hash: finalCheckpointOf(parent).hash} : undefined,
      onStep: (step, loss) => progress(task, spec, step, loss),
      onCheckpoint: async (checkpoint) => {
        if (!stored.some((known) => known.step === checkpoint.step)) stored.push(checkpoint)
        const current = (await readSolverState(connection.stateDir, me, task.id)) ?? saved
        await save({...current, checkpoints: stored})
        // Told only once it is on disk: a process killed after this event resumes from this checkpoint.
        emit({type: 'checkpoint', taskId: task.id, step: checkpoint.step, hash: checkpoint.hash})
        await dutiesDuringTraining()
      },
    })
  }

  /** The manifest of the parent's accepted proof (the one its on-chain root commits to). */
  async function parentManifest(task: Task): Promise<ProofManifest> {
    const parent = await getTask(connection, task.parentId)
    const manifest = await connection.store.getJson<ProofManifest>(parent.manifestHash)
    if (manifest.merkleRoot !== parent.proofRoot)
      throw new BaseError(`task ${task.id}: the proof of its parent task ${task.parentId} in the store is not the accepted one (root ${parent.proofRoot})`)
    return manifest
  }


  /** A cheating solver: makes its proof with an adversary strategy, then commits it like an honest one. */
  async function trainCheat(task: Task, spec: JobSpec, name: StrategyName): Promise<TrainResult> {
    return cheat({
      strategy: name,
      spec,
      store: connection.store,
      backend: options.backend,
      seed: Number(BigInt.asUintN(32, BigInt(task.id) * 2654435761n)),
      // A cheat on a split task still has to start from the parent's final checkpoint (commitProof checks it).
      start: task.parentId === 0n ? undefined : {hash: finalCheckpointOf(await parentManifest(task)).hash},
      signal,
      onStep: (step, loss) => progress(task, spec, step, loss),
      onCheckpoint: () => dutiesDuringTraining(),
    })
  }

  /**
   * Tosses the forced-error coin (once the block after the claim exists) and commits: the proof itself, or,
   * when forced, a deliberately wrong one with this one sealed for the reveal.
   */
  async function commit(task: Task, result: TrainResult): Promise<SolvedTask | undefined> {
    const state = (await readSolverState(connection.stateDir, me, task.id)) ?? {taskId: task.id, checkpoints: []}
    const honest: SolverProof = {proofRoot: result.proofRoot, manifestHash: result.manifestHash}
    // commitProof needs block.number > claimBlock + 1, and the coin needs the hash of block claimBlock + 1.
    if (!(await waitForBlock(task.claimBlock + 2n))) return undefined
    const seed = await seedForCommit(task)
    if (seed === undefined) return undefined
    const forced = await tossCoin(task, state.secret, seed)
    let published: {proofRoot: Hex; manifestHash: Hex; manifest: ProofManifest} = {...honest, manifest: result.manifest}
    if (forced && state.secret) published = await forcedErrorProof({store: connection.store, honest: result.manifest, secret: state.secret})
    await save({...state, honest, committed: {proofRoot: published.proofRoot, manifestHash: published.manifestHash}, forced})
    const checkpoints = published.manifest.checkpoints
    // The steps actually trained, counted from the range's start: fewer than the range after an early stop.
    const totalSteps = (checkpoints.at(-1)?.step ?? 0) - (checkpoints[0]?.step ?? 0)
    // A split task proves that its first checkpoint is its parent's last (docs/market.md, section 4).
    const parent = task.parentId === 0n ? undefined : await parentManifest(task)
    const transaction = await commitProof(connection, task.id, {
      proofRoot: published.proofRoot,
      manifestHash: published.manifestHash,
      checkpointCount: checkpoints.length,
      checkpointInterval: published.manifest.checkpointInterval,
      totalSteps,
      sealedHonest: sealHonest({honestRoot: honest.proofRoot, honestManifestHash: honest.manifestHash, secret: state.secret ?? zeroHash}),
      ...(parent ? {start: stackedProof({parent, child: published.manifest})} : {}),
    })
    emit({
      type: 'committed',
      taskId: task.id,
      proofRoot: published.proofRoot,
      manifestHash: published.manifestHash,
      checkpoints: checkpoints.length,
      totalSteps,
      trainingSeconds: result.seconds,
      runtime: runtimeIdString(result.runtime),
      gasUsed: transaction.gasUsed,
      ...(strategy === 'honest' ? {} : {strategy}),
      ...(forced ? {sealedHonestRoot: honest.proofRoot} : {}),
    })
    return {taskId: task.id, proofRoot: published.proofRoot, manifestHash: published.manifestHash, checkpoints: checkpoints.length, totalSteps, trainingSeconds: result.seconds, forced}
  }

  /**
   * The seed the commit will record: the one fixed on chain, else blockhash(claimBlock + 1) while the EVM still
   * returns it (a few blocks kept for the commit to be mined). Past that there is no seed and no commit: the
   * claim will time out (docs/security.md, finding 2), so this warns and gives up.
   */
  async function seedForCommit(task: Task): Promise<Hex | undefined> {
    const fixed = (await getTask(connection, task.id)).seed
    if (fixed !== zeroHash) return fixed
    const seedBlock = task.claimBlock + 1n
    const latest = await connection.publicClient.getBlockNumber({cacheTime: 0})
    if (latest + 4n <= seedBlock + 256n) return (await connection.publicClient.getBlock({blockNumber: seedBlock})).hash
    warnOnce(task.id, `the seed block ${seedBlock} is more than 256 blocks old and its hash was never recorded: the commit is impossible, the claim will time out`)
    return undefined
  }

  /**
   * The coin off-chain (only this solver knows the secret), with the odds fixed at the claim, checked against
   * the contract's own `forcedErrorOf`. Without a saved secret no forced error can be honoured: the honest proof
   * is committed.
   */
  async function tossCoin(task: Task, secret: Hex | undefined, seed: Hex): Promise<boolean> {
    if (!secret) return noCoin(task.id, 'no secret saved for this claim')
    const forced = forcedErrorCoin({secret, seed, forcedErrorBps: task.forcedErrorBps})
    let onChain: boolean
    try {
      onChain = await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'forcedErrorOf', args: [task.id, secret]})
    } catch (error) {
      throw toProtocolError('forcedErrorOf', error)
    }
    if (onChain !== forced) throw new BaseError(`task ${task.id}: forced-error coin: computed ${forced} from seed ${seed}, forcedErrorOf says ${onChain}`)
    emit({type: 'coin', taskId: task.id, forced})
    return forced
  }

  function noCoin(taskId: bigint, why: string): false {
    emit({type: 'warning', taskId, message: `${why}: committing the honest proof, a forced error cannot be honoured`})
    return false
  }

  /** Waits until block `number` exists (false when aborted first). */
  async function waitForBlock(number: bigint): Promise<boolean> {
    for (;;) {
      if (signal?.aborted) return false
      const head = await connection.publicClient.getBlockNumber({cacheTime: 0})
      connection.stallWatch?.observe(head)
      if (head >= number) return true
      await sleep(loopPollMs(options.pollMs, connection), signal)
    }
  }
}
