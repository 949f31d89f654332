import {createDisputeAgent} from '../../dispute/createDisputeAgent.js'
import {runtimeIdString, selectBackend} from '../../ml/backend/index.js'
import {ensureRegistered} from '../../protocol/ensureRegistered.js'
import {getMarketParams, getWorkTable} from '../../protocol/solverBook.js'
import type {SolverDisputeStance, SolverOptions, SolverRun} from './types.js'

/**
 * Sets a solver up before its loop: its dispute agent, its backend, its registration (the book lists no more
 * tasks than the stake backs: capacity * solverStake, docs/market.md section 3), its ask and the work table,
 * then says it is ready.
 */
export async function startSolver(options: SolverOptions): Promise<SolverRun> {
  const {connection} = options
  const emit = options.onEvent ?? (() => {})
  const me = connection.account.address
  const strategy = options.strategy ?? 'honest'
  // A cheat (or a test's corrupted training) stands behind its wrong proof unless told otherwise.
  const stance: SolverDisputeStance = options.disputeStance ?? (strategy === 'honest' && !options.corruption ? 'honest' : 'defend')
  const capacity = options.capacity ?? 1
  const started = performance.now()
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
  await ensureRegistered(connection, {role: 'solver', tasks: capacity})
  const ask = options.ask ?? (await getMarketParams(connection)).priceFloor
  const workTable = await getWorkTable(connection)
  emit({type: 'ready', address: me, runtime: runtimeIdString(runtime), disputeStance: stance, ask, capacity})
  return {
    options,
    connection,
    signal: options.signal,
    emit,
    me,
    strategy,
    stance,
    capacity,
    ask,
    workTable,
    started,
    agent,
    memory: {
      lostRaces: new Map(),
      never: new Set(),
      book: {price: 0n, listed: false, active: 0},
      honestWork: new Map(),
      announcedLeaving: false,
      left: false,
      firstSeen: new Map(),
      warned: new Set(),
      lastDuties: 0,
    },
  }
}
