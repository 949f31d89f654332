import {createDisputeAgent} from '../../dispute/createDisputeAgent.js'
import {runtimeIdString, selectBackend} from '../../ml/backend/index.js'
import {ensureRegistered} from '../../protocol/ensureRegistered.js'
import {stakesHeld, type VerifierOptions, type VerifierRun} from './types.js'

/** Sets a verifier up before its loop: its backend, its registration with the stakes it holds, and its committee duty. */
export async function startVerifier(options: VerifierOptions): Promise<VerifierRun> {
  const {connection} = options
  const emit = options.onEvent ?? (() => {})
  const me = connection.account.address
  const strategy = options.strategy ?? 'honest'
  const colludeWith = options.colludeWith ?? []
  const mode = options.mode ?? 'exact'
  const runtime = await selectBackend(options.backend)
  await ensureRegistered(connection, {role: 'verifier', tasks: stakesHeld})
  emit({type: 'ready', address: me, runtime: runtimeIdString(runtime), strategy})
  // Committee duty: a verifier with free stake may be drawn to vote on any dispute it is not a party of.
  const agent = createDisputeAgent({
    connection,
    store: connection.store,
    stance: 'honest',
    serveCommittee: true,
    onEvent: (event) => emit({type: 'dispute', event}),
  })
  return {options, connection, signal: options.signal, emit, me, strategy, colludeWith, mode, runtime, agent, memory: {passed: new Set(), firstSeen: new Map()}}
}
