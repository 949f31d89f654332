import {randomBytes} from 'node:crypto'

import {type Hex, toHex, zeroHash} from 'viem'

import {cheat, type StrategyName} from '../adversary/index.js'
import {forcedErrorProof} from '../adversary/forcedError.js'
import {taskMarketAbi} from '../chain/generated/index.js'
import {trainJobWithOperatorCorruption} from '../dispute/corruptOperator.js'
import {createDisputeAgent, type DisputeAgentEvent} from '../dispute/createDisputeAgent.js'
import type {OperatorCorruption} from '../dispute/types.js'
import {BaseError} from '../errors/base.js'
import {runtimeIdString, selectBackend} from '../ml/backend/index.js'
import type {JobSpec} from '../ml/spec/index.js'
import {TrainingAbortedError, trainJob, type TrainResult} from '../ml/train/index.js'
import type {ProofManifest} from '../pol/index.js'
import {disputeTaskRejection} from '../protocol/disputeActions.js'
import {ensureRegistered} from '../protocol/ensureRegistered.js'
import {ContractRevertError, isRevert, toProtocolError} from '../protocol/errors.js'
import {getTask} from '../protocol/getTask.js'
import {listTasks} from '../protocol/listTasks.js'
import {loadTaskSpec} from '../protocol/loadTaskSpec.js'
import {
  claimTask,
  commitProof,
  forcedErrorCoin,
  revealForcedError,
  type SettleOutcome,
  sealHonest,
  secretHashOf,
} from '../protocol/marketActions.js'
import type {Task} from '../protocol/types.js'
import {chainTime} from './chainTime.js'
import {type ChainNow, type RoleLoopOptions, runRoleLoop} from './runRoleLoop.js'
import {sleep} from './sleep.js'
import {readSolverState, type SolverProof, type SolverState, writeSolverState} from './solverState.js'

/** How a solver plays a dispute over its proof (`solve --dispute-stance`, docs/adversaries.md). */
export const solverDisputeStances = ['honest', 'defend', 'staller'] as const
export type SolverDisputeStance = (typeof solverDisputeStances)[number]

export type SolverEvent =
  | {type: 'ready'; address: Hex; runtime: string; disputeStance: SolverDisputeStance}
  | {type: 'claimed'; taskId: bigint; claimBlock: bigint; gasUsed: bigint}
  | {type: 'resumed'; taskId: bigint; step: number}
  | {type: 'progress'; taskId: bigint; step: number; steps: number; loss: number}
  | {type: 'checkpoint'; taskId: bigint; step: number; hash: Hex}
  /** The forced-error coin, computed off-chain and checked against `forcedErrorOf`. */
  | {type: 'coin'; taskId: bigint; forced: boolean}
  | {
      type: 'committed'
      taskId: bigint
      proofRoot: Hex
      manifestHash: Hex
      checkpoints: number
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
}

export type SolvedTask = {taskId: bigint; proofRoot: Hex; manifestHash: Hex; checkpoints: number; trainingSeconds: number; forced: boolean}

/** A fresh 32-byte secret per claim: it and the block after the claim decide the forced-error coin. */
function freshSecret(): Hex {
  return toHex(randomBytes(32))
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
  // Tasks another solver claimed first: the list we read may still show them open for a block.
  const lostRaces = new Set<bigint>()
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
    onEvent: (event) => emit({type: 'dispute', event}),
  })

  const runtime = await selectBackend(options.backend)
  await ensureRegistered(connection, 'solver')
  emit({type: 'ready', address: me, runtime: runtimeIdString(runtime), disputeStance: stance})

  return runRoleLoop({
    options,
    isOwnVerified: (task) => task.solver === me && task.status === 'Verified',
    pick(tasks, now, mayTakeMore) {
      const held = tasks.find((task) => task.solver === me && task.status === 'Claimed' && now.timestamp <= task.deadline)
      if (held) return {task: held, held: true}
      for (const task of tasks) if (task.status === 'Submitted' && !firstSeen.has(task.id)) firstSeen.set(task.id, performance.now())
      const waited = (task: Task) => performance.now() - (firstSeen.get(task.id) ?? 0) >= (options.claimDelayMs ?? 0)
      const open = tasks.find((task) => task.status === 'Submitted' && !lostRaces.has(task.id) && now.timestamp <= task.deadline && waited(task))
      return open && mayTakeMore ? {task: open, held: false} : undefined
    },
    work: solveTask,
    duties,
    onSettled: (report) => emit({type: 'settle', ...report}),
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

  /** Every poll (and at checkpoints while training): reveals, rejection disputes and dispute rounds. */
  async function duties(tasks: Task[], now: ChainNow): Promise<void> {
    lastDuties = performance.now()
    for (const task of tasks) {
      if (task.solver !== me || task.status !== 'Verified') continue
      const state = await readSolverState(connection.stateDir, me, task.id)
      if (state?.forced && !state.revealed && !task.forcedRevealed && state.committed?.proofRoot === task.proofRoot) await reveal(task, state, now)
      else if (!task.accepted) await disputeIfWronged(task, state, now)
    }
    await agent.poll()
  }

  /** Runs the duties from inside a long training run (at checkpoints), at most once a poll interval. */
  async function dutiesDuringTraining(): Promise<void> {
    if (performance.now() - lastDuties < (options.pollMs ?? 500)) return
    await duties(await listTasks(connection), await chainTime(connection))
  }

  /**
   * In the reveal window (blocks challengeEndBlock + 1 .. revealEndBlock): shows the secret and the honest
   * proof, whatever the verdict. A rejected forced error left unrevealed would be slashed as a cheat.
   */
  async function reveal(task: Task, state: SolverState, now: ChainNow): Promise<void> {
    const opens = task.challengeEndBlock + 1n
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
      const secret = freshSecret()
      const live = (await listTasks(connection)).filter((other) => other.solver === me && !['Settled', 'Expired', 'Submitted'].includes(other.status))
      await writeSolverState(connection.stateDir, me, {taskId: task.id, checkpoints: [], secret}, live.map((other) => other.id))
      try {
        const claim = await claimTask(connection, task.id, secretHashOf(secret))
        emit({type: 'claimed', taskId: task.id, claimBlock: claim.claimBlock, gasUsed: claim.gasUsed})
      } catch (error) {
        if (isRevert(error, 'InvalidStatus', 'DeadlinePassed', 'SolverRejected', 'EscrowExhausted')) {
          emit({type: 'lost-race', taskId: task.id, reason: error.errorName})
          lostRaces.add(task.id)
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
      onStep: (step, loss) => emit({type: 'progress', taskId: task.id, step, steps: spec.training.steps, loss}),
      onCheckpoint: () => dutiesDuringTraining(),
    })
  }

  async function trainHonestly(task: Task, spec: JobSpec, saved: SolverState): Promise<TrainResult> {
    const stored = [...saved.checkpoints]
    const last = stored.at(-1)
    const resume = last ? {...last, checkpoints: [...stored]} : undefined
    if (resume) emit({type: 'resumed', taskId: task.id, step: resume.step})
    return trainJob({
      spec,
      store: connection.store,
      backend: options.backend,
      signal,
      resume,
      onStep: (step, loss) => emit({type: 'progress', taskId: task.id, step, steps: spec.training.steps, loss}),
      onCheckpoint: async (checkpoint) => {
        emit({type: 'checkpoint', taskId: task.id, step: checkpoint.step, hash: checkpoint.hash})
        if (!stored.some((known) => known.step === checkpoint.step)) stored.push(checkpoint)
        const current = (await readSolverState(connection.stateDir, me, task.id)) ?? saved
        await save({...current, checkpoints: stored})
        await dutiesDuringTraining()
      },
    })
  }

  /** A cheating solver: makes its proof with an adversary strategy, then commits it like an honest one. */
  async function trainCheat(task: Task, spec: JobSpec, name: StrategyName): Promise<TrainResult> {
    return cheat({
      strategy: name,
      spec,
      store: connection.store,
      backend: options.backend,
      seed: Number(BigInt.asUintN(32, BigInt(task.id) * 2654435761n)),
      signal,
      onStep: (step, loss) => emit({type: 'progress', taskId: task.id, step, steps: spec.training.steps, loss}),
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
    const forced = await tossCoin(task, state.secret)
    let published: {proofRoot: Hex; manifestHash: Hex; manifest: ProofManifest} = {...honest, manifest: result.manifest}
    if (forced && state.secret) published = await forcedErrorProof({store: connection.store, honest: result.manifest, secret: state.secret})
    await save({...state, honest, committed: {proofRoot: published.proofRoot, manifestHash: published.manifestHash}, forced})
    const checkpoints = published.manifest.checkpoints
    const transaction = await commitProof(connection, task.id, {
      proofRoot: published.proofRoot,
      manifestHash: published.manifestHash,
      checkpointCount: checkpoints.length,
      checkpointInterval: published.manifest.checkpointInterval,
      totalSteps: checkpoints.at(-1)?.step ?? 0,
      sealedHonest: sealHonest({honestRoot: honest.proofRoot, honestManifestHash: honest.manifestHash, secret: state.secret ?? zeroHash}),
    })
    emit({
      type: 'committed',
      taskId: task.id,
      proofRoot: published.proofRoot,
      manifestHash: published.manifestHash,
      checkpoints: checkpoints.length,
      trainingSeconds: result.seconds,
      runtime: runtimeIdString(result.runtime),
      gasUsed: transaction.gasUsed,
      ...(strategy === 'honest' ? {} : {strategy}),
      ...(forced ? {sealedHonestRoot: honest.proofRoot} : {}),
    })
    return {taskId: task.id, proofRoot: published.proofRoot, manifestHash: published.manifestHash, checkpoints: checkpoints.length, trainingSeconds: result.seconds, forced}
  }

  /**
   * The coin off-chain (only this solver knows the secret), with the odds fixed at the claim, checked against
   * the contract's own `forcedErrorOf`. Without a saved secret, or once the seed block is too old for
   * blockhash (the contract then falls back to a per-block hash nobody can predict), no forced error can be
   * honoured: the honest proof is committed.
   */
  async function tossCoin(task: Task, secret: Hex | undefined): Promise<boolean> {
    const seedBlock = task.claimBlock + 1n
    const latest = await connection.publicClient.getBlockNumber({cacheTime: 0})
    if (!secret) return noCoin(task.id, 'no secret saved for this claim')
    // blockhash reaches 256 blocks back; leave a few blocks for the commit to be mined.
    if (latest + 4n > seedBlock + 256n) return noCoin(task.id, `the seed block ${seedBlock} is more than 256 blocks old`)
    const block = await connection.publicClient.getBlock({blockNumber: seedBlock})
    const forced = forcedErrorCoin({secret, seed: block.hash, forcedErrorBps: task.forcedErrorBps})
    let onChain: boolean
    try {
      onChain = await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'forcedErrorOf', args: [task.id, secret]})
    } catch (error) {
      throw toProtocolError('forcedErrorOf', error)
    }
    if (onChain !== forced) throw new BaseError(`task ${task.id}: forced-error coin: computed ${forced} from block ${seedBlock}, forcedErrorOf says ${onChain}`)
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
      if ((await connection.publicClient.getBlockNumber({cacheTime: 0})) >= number) return true
      await sleep(options.pollMs ?? 500, signal)
    }
  }
}
