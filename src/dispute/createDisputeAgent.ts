import {type Hex, keccak256, toHex} from 'viem'

import {BaseError} from '../errors/base.js'
import {randomHex} from '../random/randomHex.js'
import {seededRandom} from '../random/seededRandom.js'
import {checkpointHash} from '../ml/checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {taskStepRange} from '../ml/train/taskStepRange.js'
import type {ProofManifest} from '../ml/checkpoint/manifest.js'
import type {SignedConnection} from '../protocol/connect.js'
import {arbitrate, drawCommittee, escalate, postCommitment, postState, postTraceHeader, timeoutDispute, vote} from '../protocol/disputeActions.js'
import {type Dispute, type DisputeOutcome, type DisputePhase, type DisputeRole, hasPosted, type TraceHeader, type VoteChoice} from '../protocol/disputeTypes.js'
import {isRevert} from '../protocol/errors.js'
import {committeeOf, disputeCount, getDispute} from '../protocol/getDispute.js'
import {getProtocolParams} from '../protocol/getProtocolParams.js'
import {getTask} from '../protocol/getTask.js'
import {loadTaskSpec} from '../protocol/loadTaskSpec.js'
import type {TransactionResult} from '../protocol/sendContractTransaction.js'
import type {BlobStore} from '../store/types.js'
import {arbitrationPayload, isDecidableOnchain} from './arbitration.js'
import {nextCommitment} from './encoding.js'
import {DisputeTraceError} from './errors.js'
import {segmentStateHashes, stateAtStep} from './stateHashes.js'
import {traceStep} from './traceStep.js'
import type {OperatorCorruption, StepTrace} from './types.js'

/**
 * How the agent plays its own disputes (committee votes are always honest):
 * - `honest`: replays and posts what it computes;
 * - `griefer`: posts made-up hashes and headers, never replays (a whistleblower challenging correct work);
 * - `staller`: answers `stallAfterRounds` rounds honestly, then never moves again (it loses by timeout);
 * - `defend`: a prover behind a wrong proof that still replays honestly: its moves are the honest ones and its
 *   S_{i+1} is the committed end hash the dispute opened with, so it loses at the last step (StateAssembly);
 * - `corrupt` (TEST-ONLY): defends a proof trained with `corruption`, computing states and traces with it.
 */
export type DisputeStance = 'honest' | 'griefer' | 'staller' | 'defend' | 'corrupt'
export const disputeStances: readonly DisputeStance[] = ['honest', 'griefer', 'staller', 'defend', 'corrupt']

export type DisputeMove = 'state' | 'header' | 'commitment' | 'arbitrate' | 'escalate' | 'timeout' | 'draw' | 'vote'

export type DisputeAgentEvent =
  | {type: 'joined'; disputeId: bigint; taskId: bigint; role: DisputeRole | 'committee'}
  | {type: 'move'; disputeId: bigint; taskId: bigint; move: DisputeMove; phase: DisputePhase; index: bigint; value?: string | undefined; gasUsed: bigint}
  | {type: 'stalled'; disputeId: bigint; taskId: bigint; rounds: number}
  | {type: 'resolved'; disputeId: bigint; taskId: bigint; role: DisputeRole | 'committee'; outcome: DisputeOutcome; won: boolean | undefined}
  | {type: 'lost-race'; disputeId: bigint; taskId: bigint; move: DisputeMove; reason: string}
  /** A move it could not compute or send (a blob missing from its store, say); it tries again on the next poll. */
  | {type: 'error'; disputeId: bigint; taskId: bigint; message: string}

export type DisputeAgentOptions = {
  connection: SignedConnection
  /** Where specs, manifests and checkpoints are read (default: the connection's store). */
  store?: BlobStore | undefined
  stance?: DisputeStance | undefined
  /** `staller`: how many of its own moves it makes before it stops (default 1). */
  stallAfterRounds?: number | undefined
  /** `corrupt`: the operator corruption the defended proof was trained with. */
  corruption?: OperatorCorruption | undefined
  /** Judge and vote when drawn for a committee (default true). */
  serveCommittee?: boolean | undefined
  /** Seeds a griefer's made-up answers, so a replayed devnet run makes the same ones (default: random). */
  seed?: Hex | undefined
  onEvent?: ((event: DisputeAgentEvent) => void) | undefined
}

export type DisputeAgent = {
  /** Makes every move due now for this account (its disputes, and its committee seats), then returns. */
  poll(): Promise<void>
  /** Disputes this agent took part in and saw resolved, with their outcomes. */
  readonly resolved: ReadonlyMap<bigint, DisputeOutcome>
}

/** What the agent knows about a dispute's task: computed once per dispute. */
type DisputeContext = {
  spec: JobSpec
  manifest: ProofManifest
  segment: number
  /**
   * The task's first absolute step (taskStepRange: 0 unless it is a later task of a split job). The game numbers
   * steps from the task's start (docs/disputes.md: segment s spans [s * interval, ...]); the manifest, the
   * checkpoints and training number them from the job's, so absolute step = rangeStart + game step.
   */
  rangeStart: number
  /** State hashes after each step of the segment, from startStep (hashes[0] is the committed start). */
  stateHashes?: Hex[]
  /** Traces of disputed steps, by step and by whether the corruption applies. */
  traces: Map<string, StepTrace>
}

/** Reverts that mean another actor moved first or the round moved on: the next poll sees the new state. */
const raceErrors = ['WrongPhase', 'AlreadyPosted', 'DeadlinePassed', 'DeadlineNotReached', 'AlreadyVoted', 'DisputeNotFound', 'CommitteeAlreadyDrawn', 'CommitteeNotDrawn']

/**
 * The off-chain player of the pinpoint dispute game (docs/disputes.md, "PinpointGame"). Each `poll` reads the
 * game and, in every unresolved dispute where this account is the prover or the challenger, posts what the
 * current round asks for (state hash, trace header, commitment), arbitrates or escalates the isolated element,
 * and claims a timeout once the deadline passed; as a drawn committee member it recomputes the disputed thing
 * and votes. State hashes and traces come from re-executing the segment on wasm from its committed start
 * checkpoint (the task's spec and manifest from the store) and are cached per dispute.
 */
export function createDisputeAgent(options: DisputeAgentOptions): DisputeAgent {
  const {connection} = options
  const store = options.store ?? connection.store
  const random = seededRandom(options.seed === undefined ? undefined : `${options.seed}:dispute`)
  /** A griefer's made-up hash: random, never zero. */
  const madeUp = (): Hex => randomHex(random)
  const stance = options.stance ?? 'honest'
  const stallAfter = options.stallAfterRounds ?? 1
  const serveCommittee = options.serveCommittee ?? true
  const emit = options.onEvent ?? (() => {})
  const me = connection.account.address.toLowerCase()
  if (stance === 'corrupt' && !options.corruption) throw new DisputeTraceError('corruption: the corrupt stance needs the operator corruption its proof was trained with')

  const contexts = new Map<bigint, Promise<DisputeContext>>()
  const roles = new Map<bigint, DisputeRole | 'committee'>()
  const moves = new Map<bigint, number>()
  const stalled = new Set<bigint>()
  const voted = new Set<bigint>()
  const resolved = new Map<bigint, DisputeOutcome>()
  /** Disputes known to be over (resolved, or not ours and past any committee draw): never read again. */
  const done = new Set<bigint>()

  return {
    resolved,
    async poll() {
      const count = await disputeCount(connection)
      const block = await connection.publicClient.getBlockNumber()
      let maxOnchainElements: number | undefined
      for (let id = 1n; id <= count; id++) {
        if (done.has(id)) continue
        const dispute = await getDispute(connection, id)
        const role = roleIn(dispute)
        if (dispute.phase === 'Resolved') {
          finish(dispute, roles.get(id))
          continue
        }
        try {
          if (role) {
            if (!roles.has(id)) {
              roles.set(id, role)
              emit({type: 'joined', disputeId: id, taskId: dispute.taskId, role})
            }
            maxOnchainElements ??= (await getProtocolParams(connection)).maxOnchainElements
            await play(dispute, role, block, maxOnchainElements)
          } else if (!serveCommittee) {
            done.add(id) // the parties are fixed when a dispute opens: it never concerns this agent
          } else if (dispute.phase === 'Committee' && !voted.has(id)) {
            await serve(dispute, block)
          }
        } catch (error) {
          // One dispute it cannot play (yet) must not stop the others, nor the actor running it.
          if (!(error instanceof BaseError)) throw error
          emit({type: 'error', disputeId: id, taskId: dispute.taskId, message: error.shortMessage})
        }
      }
    },
  }

  function roleIn(dispute: Dispute): DisputeRole | undefined {
    if (dispute.prover.toLowerCase() === me) return 'prover'
    if (dispute.challenger.toLowerCase() === me) return 'challenger'
    return undefined
  }

  function finish(dispute: Dispute, role: DisputeRole | 'committee' | undefined): void {
    done.add(dispute.id)
    contexts.delete(dispute.id)
    if (role === undefined) return
    resolved.set(dispute.id, dispute.outcome)
    const won = role === 'committee' ? undefined : role === 'prover' ? dispute.outcome === 'ProverWon' : dispute.outcome === 'ChallengerWon'
    emit({type: 'resolved', disputeId: dispute.id, taskId: dispute.taskId, role, outcome: dispute.outcome, won})
  }

  /** One party's moves in one dispute, for the round the chain is in now. */
  async function play(dispute: Dispute, role: DisputeRole, block: bigint, maxOnchainElements: number): Promise<void> {
    const id = dispute.id
    const stopped = stance === 'staller' && (moves.get(id) ?? 0) >= stallAfter
    if (stopped) {
      if (!stalled.has(id)) {
        stalled.add(id)
        emit({type: 'stalled', disputeId: id, taskId: dispute.taskId, rounds: moves.get(id) ?? 0})
      }
      return
    }
    if (block > dispute.deadline) {
      // The round is over: whoever posted wins it, an arbitration goes to the committee, a committee is tallied.
      await move(dispute, 'timeout', dispute.phase === 'Steps' || dispute.phase === 'Operators' ? midOf(dispute) : dispute.element, () => timeoutDispute(connection, id))
      return
    }
    switch (dispute.phase) {
      case 'Steps': {
        if (hasPosted(dispute, role)) return
        const mid = midOf(dispute)
        const hash = stance === 'griefer' ? madeUp() : await stateHashAt(dispute, mid)
        await move(dispute, 'state', mid, () => postState(connection, id, hash), hash)
        return
      }
      case 'TraceHeader': {
        if (hasPosted(dispute, role)) return
        const header: TraceHeader =
          stance === 'griefer'
            ? {opCount: 1 + Math.floor(random() * 1000), graphHash: madeUp(), finalCommitment: madeUp()}
            : headerOf(await traceAt(dispute))
        await move(dispute, 'header', dispute.step, () => postTraceHeader(connection, id, header), `${header.opCount} ops, graph ${header.graphHash}`)
        return
      }
      case 'Operators': {
        if (hasPosted(dispute, role)) return
        const mid = midOf(dispute)
        const commitment = stance === 'griefer' ? madeUp() : commitmentAt(await traceAt(dispute), mid)
        await move(dispute, 'commitment', mid, () => postCommitment(connection, id, commitment), commitment)
        return
      }
      case 'Arbitration': {
        if (stance === 'griefer') return // it has no trace to build the payload from
        const trace = await traceAt(dispute)
        const element = trace.elements[dispute.element - 1]
        if (element && isDecidableOnchain(element.descriptor, maxOnchainElements)) {
          try {
            await move(dispute, 'arbitrate', BigInt(dispute.element), () => arbitrate(connection, id, arbitrationPayload(trace, dispute.element)), element.descriptor.kernel)
            return
          } catch (error) {
            if (!isRevert(error, 'NotDecidableOnchain')) throw error
          }
        }
        await move(dispute, 'escalate', BigInt(dispute.element), () => escalate(connection, id), element?.descriptor.kernel)
        return
      }
      case 'Committee':
        await drawIfDue(dispute, block)
        return
      case 'None':
      case 'Resolved':
        return
    }
  }

  /**
   * A committee is drawn from the hash of the block after the one that opened it, by whoever calls first: each
   * party (and each committee server) calls once that block exists, so neither can keep the committee undrawn.
   */
  async function drawIfDue(dispute: Dispute, block: bigint): Promise<void> {
    if (dispute.drawAnchor === 0n || block <= dispute.drawAnchor + 1n) return
    await move(dispute, 'draw', BigInt(dispute.element), () => drawCommittee(connection, dispute.id))
  }

  /** A committee seat: recompute the disputed thing from the agreed state and vote for whoever matches it. */
  async function serve(dispute: Dispute, block: bigint): Promise<void> {
    if (dispute.drawAnchor !== 0n) return drawIfDue(dispute, block)
    const committee = await committeeOf(connection, dispute.id)
    const seat = committee.members.findIndex((member) => member.toLowerCase() === me)
    if (seat < 0) {
      // Not drawn: the committee is fixed once drawn, so this dispute never concerns us again.
      done.add(dispute.id)
      return
    }
    if (!roles.has(dispute.id)) {
      roles.set(dispute.id, 'committee')
      emit({type: 'joined', disputeId: dispute.id, taskId: dispute.taskId, role: 'committee'})
    }
    if (committee.votes[seat] !== 'none') {
      voted.add(dispute.id)
      return
    }
    if (block > dispute.deadline) return
    const choice = await judge(dispute)
    await move(dispute, 'vote', BigInt(dispute.element), () => vote(connection, dispute.id, choice), choice)
    voted.add(dispute.id)
  }

  /** The committee's question answered honestly (docs/disputes.md, "Committee"). */
  async function judge(dispute: Dispute): Promise<VoteChoice> {
    const context = await contextOf(dispute)
    const state = await stateAtStep({spec: context.spec, store, manifest: context.manifest, segment: context.segment, step: context.rangeStart + Number(dispute.step)})
    // An agreed S_i that the committed start does not lead to: both parties stand on a state nobody can derive.
    if (checkpointHash(encodeCheckpoint(state)) !== dispute.stateHash) return 'neither'
    const trace = await traceStep({spec: context.spec, state})
    const pick = (mine: string, prover: string, challenger: string): VoteChoice =>
      prover === mine && challenger !== mine ? 'prover' : challenger === mine && prover !== mine ? 'challenger' : 'neither'
    switch (dispute.question) {
      case 'Graph': {
        const key = (header: TraceHeader) => `${header.opCount}:${header.graphHash}`
        return pick(key(headerOf(trace)), key(dispute.proverHeader), key(dispute.challengerHeader))
      }
      case 'Operator': {
        const element = trace.elements[dispute.element - 1]
        // Both parties agreed on a graph or on outputs this step does not produce: neither traced it honestly.
        if (!element || trace.graphHash !== dispute.proverHeader.graphHash || trace.commitments[dispute.element - 1] !== dispute.loHash) return 'neither'
        // c_j from the agreed c_{j-1} and this member's own o_j of element j.
        return pick(nextCommitment(dispute.loHash, element.outputHash), dispute.proverHi, dispute.challengerHi)
      }
      case 'StateAssembly':
        if (trace.graphHash !== dispute.proverHeader.graphHash || trace.finalCommitment !== dispute.proverHeader.finalCommitment) return 'neither'
        return pick(trace.nextStateHash, dispute.proverNext, dispute.challengerNext)
      case 'None':
        return 'neither'
    }
  }

  /** Sends one move; a lost race (the round moved on, another party timed it out) is reported and skipped. */
  async function move(dispute: Dispute, kind: DisputeMove, index: bigint | number, send: () => Promise<TransactionResult>, value?: string): Promise<void> {
    try {
      const transaction = await send()
      moves.set(dispute.id, (moves.get(dispute.id) ?? 0) + 1)
      emit({type: 'move', disputeId: dispute.id, taskId: dispute.taskId, move: kind, phase: dispute.phase, index: BigInt(index), value, gasUsed: transaction.gasUsed})
    } catch (error) {
      if (!isRevert(error, ...raceErrors)) throw error
      emit({type: 'lost-race', disputeId: dispute.id, taskId: dispute.taskId, move: kind, reason: error.errorName})
    }
  }

  function contextOf(dispute: Dispute): Promise<DisputeContext> {
    let context = contexts.get(dispute.id)
    if (!context) {
      context = loadContext(dispute)
      contexts.set(dispute.id, context)
      // A failed load (a blob not there yet) is retried on the next poll.
      context.catch(() => contexts.delete(dispute.id))
    }
    return context
  }

  async function loadContext(dispute: Dispute): Promise<DisputeContext> {
    const task = await getTask(connection, dispute.taskId)
    const spec = await loadTaskSpec({store}, task)
    const manifest = await store.getJson<ProofManifest>(task.manifestHash)
    const interval = task.checkpointInterval > 0n ? task.checkpointInterval : BigInt(manifest.checkpointInterval)
    const segment = Number(dispute.startStep / interval)
    const start = manifest.checkpoints[segment]
    const rangeStart = taskStepRange(spec).start
    if (start?.step !== rangeStart + Number(dispute.startStep)) {
      throw new DisputeTraceError(
        `dispute ${dispute.id}: its start step ${dispute.startStep} (absolute ${rangeStart + Number(dispute.startStep)}) is not checkpoint ${segment} of task ${dispute.taskId}'s proof`,
      )
    }
    return {spec, manifest, segment, rangeStart, traces: new Map()}
  }

  /** This party's S_t for a step of the segment (computed once per dispute, with the corruption if it plays one). */
  async function stateHashAt(dispute: Dispute, step: bigint): Promise<Hex> {
    const context = await contextOf(dispute)
    context.stateHashes ??= (
      await segmentStateHashes({spec: context.spec, store, manifest: context.manifest, segment: context.segment, corruption: corruptionFor()})
    ).hashes
    const hash = context.stateHashes[Number(step - dispute.startStep)]
    if (!hash) throw new DisputeTraceError(`dispute ${dispute.id}: step ${step} is outside its segment [${dispute.startStep}, ${dispute.endStep}]`)
    return hash
  }

  /** This party's trace of the disputed step, from the agreed state S_i. */
  async function traceAt(dispute: Dispute): Promise<StepTrace> {
    const context = await contextOf(dispute)
    const step = context.rangeStart + Number(dispute.step)
    const corruption = corruptionFor()?.step === step ? corruptionFor() : undefined
    const key = `${step}:${corruption ? 'corrupt' : 'honest'}`
    let trace = context.traces.get(key)
    if (!trace) {
      const state = await stateAtStep({spec: context.spec, store, manifest: context.manifest, segment: context.segment, step, corruption: corruptionFor()})
      trace = await traceStep({spec: context.spec, state, corruption})
      context.traces.set(key, trace)
    }
    return trace
  }

  function corruptionFor(): OperatorCorruption | undefined {
    return stance === 'corrupt' ? options.corruption : undefined
  }
}

function midOf(dispute: Pick<Dispute, 'lo' | 'hi'>): bigint {
  return (dispute.lo + dispute.hi) / 2n
}

function headerOf(trace: StepTrace): TraceHeader {
  return {opCount: trace.opCount, graphHash: trace.graphHash, finalCommitment: trace.finalCommitment}
}

/** c_mid of the operator bisection (mid is at most opCount: the round's hi is at most opCount + 1). */
function commitmentAt(trace: StepTrace, mid: bigint): Hex {
  const commitment = trace.commitments[Number(mid)]
  if (!commitment) throw new DisputeTraceError(`commitment c_${mid}: expected an element number in [0, ${trace.opCount}]`)
  return commitment
}

