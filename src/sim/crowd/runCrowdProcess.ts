import {type Address, createWalletClient, type Hex} from 'viem'
import {privateKeyToAccount} from 'viem/accounts'

import {retryingTransport} from '../../chain/retryingTransport.js'
import {type Connection, type SignedConnection} from '../../protocol/connect.js'
import {ensureRegistered} from '../../protocol/ensureRegistered.js'
import {getMarketParams, type MarketParams} from '../../protocol/getMarketParams.js'
import {setOffer} from '../../protocol/setOffer.js'
import {seededRandom} from '../../random/seededRandom.js'
import {sleep} from '../../util/sleep.js'
import type {CrowdAct, CrowdContext} from './crowdContext.js'
import {type CrowdMember, type CrowdProcessSummary, type CrowdStats, emptyStats} from './types.js'
import type {Crowd} from './crowdSchema.js'
import {crowdSolver} from './roles/crowdSolver.js'
import {crowdSubmitter} from './roles/crowdSubmitter.js'
import {crowdVerifier} from './roles/crowdVerifier.js'
import {crowdWhistleblower} from './roles/crowdWhistleblower.js'
import {createTaskBoard, type TaskBoard} from './taskBoard.js'

export type {CrowdProcessSummary} from './types.js'

/** What one crowd process is given (written by the devnet as JSON, src/sim/crowd/runCrowd.ts). */
export type CrowdProcessConfig = {
  index: number
  crowd: Crowd
  members: CrowdMember[]
  /** Tasks each of this process's submitters posts, by name. */
  quotas: Record<string, number>
  /** Every crowd submitter's address, in every process: their tasks are the crowd's. */
  submitters: Address[]
  /** The block to read the market's events from (the deployment). */
  fromBlock: string
  pollMs: number
  seed: string
}

export type RunCrowdProcessOptions = {
  /** A read connection to the devnet (devnet.json): its store, contracts and public client are shared. */
  connection: Connection
  config: CrowdProcessConfig
  signal: AbortSignal
  onProgress?: ((progress: {settled: number; posted: number; head: bigint; stats: CrowdStats}) => void) | undefined
}

/**
 * Hosts a share of a crowd's actors in this one process: registers them, then runs each as a small loop of moves,
 * one per read of the shared task board, until every crowd task has settled or expired (or `signal` aborts).
 */
export async function runCrowdProcess({connection, config, signal, onProgress}: RunCrowdProcessOptions): Promise<CrowdProcessSummary> {
  const started = performance.now()
  const {crowd} = config
  const board = createTaskBoard(connection.publicClient, connection.contracts.market, BigInt(config.fromBlock))
  const crowdSubmitters = new Set(config.submitters.map((address) => address.toLowerCase()))
  const ticks = createTicks()
  const stats = emptyStats()
  const context: CrowdContext = {
    crowd,
    board,
    stats,
    random: seededRandom(`${config.seed}:crowd-process-${config.index}`),
    signal,
    claiming: new Set(),
    isCrowdTask: (task) => crowdSubmitters.has(task.submitter.toLowerCase()),
    untilBlock: async (block) => {
      while (board.head < block && !signal.aborted) await ticks.next()
    },
  }
  // Whether every crowd task has settled or expired: judged once per board read, for every member.
  let finished = false
  const polling = pollBoard(board, ticks, config.pollMs, signal, () => {
    const tasks = [...board.tasks.values()].filter(context.isCrowdTask)
    const settled = tasks.filter((task) => task.status === 'Settled' || task.status === 'Expired').length
    finished = tasks.length >= crowd.tasks && settled === tasks.length
    onProgress?.({settled, posted: tasks.length, head: board.head, stats})
    return finished
  })
  const transport = retryingTransport(connection.rpcUrl)
  const signed = config.members.map((member) => ({member, connection: signedConnection(connection, transport, member.privateKey)}))
  const market = await getMarketParams(connection)
  await Promise.all(signed.map(({member, connection}) => register(connection, member, market)))
  const open = crowd.openPerSubmitter ?? Math.ceil(crowd.solvers / config.submitters.length)
  const loops = signed.map(({member, connection}) => {
    const factory = member.role === 'submitter' ? crowdSubmitter(config.quotas[member.name] ?? 0, open, market) : member.role === 'solver' ? crowdSolver : member.role === 'verifier' ? crowdVerifier : crowdWhistleblower
    return runMember(factory(connection, member, context), context, ticks, () => finished)
  })
  await Promise.all([...loops, polling])
  return {index: config.index, members: config.members.length, stats, peakRssMiB: process.resourceUsage().maxRSS / 1024, seconds: (performance.now() - started) / 1000}
}

/** One member's loop: a move per board read; a failed move is counted, and the member carries on. */
async function runMember(act: CrowdAct, context: CrowdContext, ticks: Ticks, finished: () => boolean): Promise<void> {
  while (!context.signal.aborted && !finished()) {
    try {
      await act()
    } catch (error) {
      if (context.signal.aborted) return
      context.stats.errors++
      context.stats.lastError = (error instanceof Error ? error.message : String(error)).split('\n')[0]
    }
    await ticks.next()
  }
}

/** Stakes for its role; a solver also lists an offer at the price floor, so it takes any task the book prices. */
async function register(connection: SignedConnection, member: CrowdMember, market: MarketParams): Promise<void> {
  if (member.role === 'submitter') return
  await ensureRegistered(connection, {role: member.role, tasks: member.role === 'whistleblower' ? 3 : 1})
  if (member.role === 'solver') await setOffer(connection, {ask: market.priceFloor, capacity: 1})
}

/** The shared connection with this member's key: one transport and public client for the whole process. */
function signedConnection(connection: Connection, transport: ReturnType<typeof retryingTransport>, privateKey: Hex): SignedConnection {
  const account = privateKeyToAccount(privateKey)
  const walletClient = createWalletClient({chain: connection.publicClient.chain, transport, account, pollingInterval: connection.publicClient.pollingInterval})
  return {...connection, account, walletClient}
}

type Ticks = {next(): Promise<void>; fire(): void; stop(): void}

/** Every waiting member wakes at the next board read. */
function createTicks(): Ticks {
  let waiting: (() => void)[] = []
  let stopped = false
  return {
    next: () => (stopped ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))),
    fire() {
      const woken = waiting
      waiting = []
      for (const resolve of woken) resolve()
    },
    stop() {
      stopped = true
      this.fire()
    },
  }
}

/** Reads the board every `pollMs` and wakes the members, until `onRead` says the crowd is finished or the run stops. */
async function pollBoard(board: TaskBoard, ticks: Ticks, pollMs: number, signal: AbortSignal, onRead: () => boolean): Promise<void> {
  while (!signal.aborted) {
    try {
      await board.refresh()
    } catch {
      // A read that failed (the node busy): the next one catches up from the same block.
    }
    if (onRead()) break
    ticks.fire()
    await sleep(pollMs, signal).catch(() => {})
  }
  ticks.stop()
}
