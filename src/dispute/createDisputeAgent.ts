import {seededRandom} from '../random/seededRandom.js'
import {pollDisputes} from './agent/pollDisputes.js'
import type {DisputeAgent, DisputeAgentOptions, DisputeAgentRun} from './agent/types.js'
import {DisputeTraceError} from './errors.js'

export {
  type DisputeAgent,
  type DisputeAgentEvent,
  type DisputeAgentOptions,
  type DisputeMove,
  type DisputeStance,
  disputeStances,
} from './agent/types.js'

/**
 * The off-chain player of the pinpoint dispute game (docs/disputes.md, "PinpointGame"). Each `poll` reads the
 * game and, in every unresolved dispute where this account is the prover or the challenger, posts what the
 * current round asks for (state hash, trace header, commitment), arbitrates or escalates the isolated element,
 * and claims a timeout once the deadline passed; as a drawn committee member it recomputes the disputed thing
 * and votes. State hashes and traces come from re-executing the segment on wasm from its committed start
 * checkpoint (the task's spec and manifest from the store) and are cached per dispute. The steps are in
 * src/dispute/agent/; what they share is the `DisputeAgentRun` made here.
 */
export function createDisputeAgent(options: DisputeAgentOptions): DisputeAgent {
  const {connection} = options
  const stance = options.stance ?? 'honest'
  if (stance === 'corrupt' && !options.corruption) throw new DisputeTraceError('corruption: the corrupt stance needs the operator corruption its proof was trained with')
  const agent: DisputeAgentRun = {
    connection,
    store: options.store ?? connection.store,
    stance,
    stallAfter: options.stallAfterRounds ?? 1,
    serveCommittee: options.serveCommittee ?? true,
    corruption: stance === 'corrupt' ? options.corruption : undefined,
    random: seededRandom(options.seed === undefined ? undefined : `${options.seed}:dispute`),
    emit: options.onEvent ?? (() => {}),
    me: connection.account.address.toLowerCase(),
    contexts: new Map(),
    roles: new Map(),
    moves: new Map(),
    stalled: new Set(),
    voted: new Set(),
    resolved: new Map(),
    done: new Set(),
  }
  return {resolved: agent.resolved, poll: () => pollDisputes(agent)}
}
