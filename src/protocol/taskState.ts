import type {Address, Hex, PublicClient} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import {getLogsPaged} from '../chain/getLogsPaged.js'
import {isRevert, toProtocolError} from './errors.js'
import {finalityDepth} from './readUnstoredFields.js'

/** Words of a task's state (TaskMarketBase.STATE_WORDS, `_pack`). */
const STATE_WORDS = 15

const ZERO_WORD = `0x${'0'.repeat(64)}` as const

/** The state of no task (what the readers answer for an id that has no TaskState event). */
export const NO_STATE: readonly Hex[] = Array.from({length: STATE_WORDS}, () => ZERO_WORD)

/**
 * The market functions that take a task's state (docs/market.md, "What a task stores"): the task's id comes first
 * and its state second; `parent` ones take the parent's state after the task's own when the task has a parent.
 * `submitTask` takes its parent's state as its last argument.
 */
const STATE_ARGUMENT: Record<string, 'task' | 'parent'> = {
  claimTask: 'parent',
  commitProof: 'parent',
  expire: 'parent',
  claimVerification: 'task',
  postVerdict: 'task',
  settle: 'task',
  fixSeed: 'task',
  renewRandomness: 'task',
  commitChallenge: 'task',
  openChallenge: 'task',
  disputeRejection: 'task',
  revealForcedError: 'task',
  getTask: 'task',
  forcedErrorOf: 'task',
}

type StateClient = Pick<PublicClient, 'getContractEvents' | 'getBlockNumber' | 'getBlock'> & {chain?: {id: number} | undefined}

/** Where task states are read: the market's TaskState events from `fromBlock` (its deployment) on. */
export type TaskStateReader = {client: StateClient; market: Address; fromBlock?: bigint | undefined}

/** Where a caller gets a task's current state: from the chain (`chainStates`), or from a test's own record. */
export type StateOf = (taskId: bigint) => Promise<Hex[]>

/**
 * Task `taskId`'s current state: the words of its last TaskState event (`NO_STATE` when it has none, as for an id
 * no task has, which the market answers with TaskNotFound). Reads all of the task's TaskState events from
 * `fromBlock` and remembers nothing: the reference the tests hold `chainStates` (which remembers) to.
 */
export async function readTaskState({client, market, fromBlock}: TaskStateReader, taskId: bigint): Promise<Hex[]> {
  const events = await getLogsPaged(client, {fromBlock: fromBlock ?? 0n}, (range) =>
    client.getContractEvents({address: market, abi: taskMarketAbi, eventName: 'TaskState', args: {id: taskId}, strict: true, ...range}),
  )
  const last = events.at(-1)
  return last ? [...last.args.state] : [...NO_STATE]
}

type Entry = {state: Hex[]; block: bigint; logIndex: number}
/** What one client has read of one market's task states: every task's last state in blocks up to `finalTo`. */
type Scanned = {finalTo: bigint; finalHash: Hex | undefined; final: Map<bigint, Entry>}
const scannedByClient = new WeakMap<object, Map<Address, Scanned>>()

/**
 * Every task's state as of one head block: `stateOf` answers without another request. Ask it at once, before the
 * next read: a later read adds what it finds to the same record.
 */
export type TaskStates = {stateOf: (taskId: bigint) => Hex[]}

/** Where the states of `connection`'s market are read. */
export function taskStateReader(connection: {publicClient: StateClient; contracts: {market: Address}; deployBlock?: bigint | undefined}): TaskStateReader {
  return {client: connection.publicClient, market: connection.contracts.market, fromBlock: connection.deployBlock}
}

/**
 * Task states as the chain has them, remembered per client: each read scans only the TaskState events of the
 * blocks after the last final one it read (every task's at once), and answers from what it remembers for the rest.
 * Final means `finalityDepth` blocks deep (every block on a development chain); the remembered blocks are dropped
 * when the last of them is no longer the chain's (a test that reverted the chain, a reorganisation deeper than that).
 */
export function chainStates(reader: TaskStateReader): StateOf {
  return async (taskId) => (await readTaskStates(reader)).stateOf(taskId)
}

/**
 * Every task's state at the chain's head, read as `chainStates` reads one: a head block and the TaskState events
 * since the last final block. What a reader of many tasks calls once (listTasks), where one call per task would
 * read the head and scan the same blocks once per task.
 */
export async function readTaskStates(reader: TaskStateReader): Promise<TaskStates> {
  const {client, market} = reader
  const head = await client.getBlock({blockTag: 'latest'})
  const scanned = await scannedOf(reader, head)
  const fromBlock = scanned.finalTo + 1n
  const events =
    fromBlock > head.number
      ? []
      : await getLogsPaged(client, {fromBlock, toBlock: head.number}, (range) =>
          client.getContractEvents({address: market, abi: taskMarketAbi, eventName: 'TaskState', strict: true, ...range}),
        )
  const finalEnd = head.number - finalityDepth(client.chain?.id)
  const young = new Map<bigint, Entry>()
  for (const event of events) {
    const entry = {state: [...event.args.state], block: event.blockNumber, logIndex: event.logIndex}
    keepNewer(event.blockNumber <= finalEnd ? scanned.final : young, event.args.id, entry)
  }
  if (finalEnd > scanned.finalTo) {
    scanned.finalTo = finalEnd
    scanned.finalHash = finalEnd === head.number ? head.hash : (await client.getBlock({blockNumber: finalEnd})).hash
  }
  const {final} = scanned
  return {stateOf: (taskId) => [...(young.get(taskId)?.state ?? final.get(taskId)?.state ?? NO_STATE)]}
}

type Head = {number: bigint; hash: Hex; parentHash: Hex}

/**
 * The client's record of the market, reset when its last final block is no longer the chain's. `head` answers that
 * without another request when the record ends at the head or just below it (a development chain between two reads).
 */
async function scannedOf({client, market, fromBlock}: TaskStateReader, head: Head): Promise<Scanned> {
  let markets = scannedByClient.get(client)
  if (!markets) scannedByClient.set(client, (markets = new Map()))
  const fresh = (): Scanned => ({finalTo: (fromBlock ?? 0n) - 1n, finalHash: undefined, final: new Map()})
  const scanned = markets.get(market) ?? fresh()
  markets.set(market, scanned)
  if (scanned.finalHash === undefined) return scanned
  const hashAtFinal =
    head.number === scanned.finalTo
      ? head.hash
      : head.number === scanned.finalTo + 1n
        ? head.parentHash
        : head.number < scanned.finalTo
          ? undefined
          : (await client.getBlock({blockNumber: scanned.finalTo}).catch(() => undefined))?.hash
  if (hashAtFinal !== scanned.finalHash) Object.assign(scanned, fresh())
  return scanned
}

function keepNewer(final: Map<bigint, Entry>, taskId: bigint, entry: Entry): void {
  const known = final.get(taskId)
  if (!known || known.block < entry.block || (known.block === entry.block && known.logIndex <= entry.logIndex)) final.set(taskId, entry)
}

/** The parent's id in a task's state (word 2, bits 128-191). */
function parentIdOf(state: readonly Hex[]): bigint {
  return (BigInt(state[2] ?? ZERO_WORD) >> 128n) & ((1n << 64n) - 1n)
}

/**
 * `args` of a market call as its caller names them (the task's id first, no state) with the task's current state
 * put where the market takes it, and its parent's after it where the call needs the parent. Calls that take no
 * state are returned as they are.
 */
export async function withTaskState(stateOf: StateOf, functionName: string, args: readonly unknown[]): Promise<readonly unknown[]> {
  if (functionName === 'submitTask') {
    const parentId = BigInt((args[4] as bigint | undefined) ?? 0n)
    return [...args.slice(0, 5), parentId === 0n ? [] : await stateOf(parentId)]
  }
  const kind = STATE_ARGUMENT[functionName]
  if (!kind) return args
  const taskId = args[0] as bigint
  const state = await stateOf(taskId)
  const parentId = kind === 'parent' ? parentIdOf(state) : 0n
  const words = parentId === 0n ? state : [...state, ...(await stateOf(parentId))]
  return [taskId, words, ...args.slice(1)]
}

/** Tries of one market call that met a task state another transaction had just replaced (StaleTask). */
const STALE_TRIES = 3

/**
 * Calls `call` with `args` of a market call with the task's current state put in place (`withTaskState`, from the
 * states of the connection's market), and again on the state read anew when it meets StaleTask, up to STALE_TRIES
 * times; `beforeRetry` runs first (a transaction waits there for the block that carries the other one). The shared
 * body of sendMarketTransaction and readMarket.
 */
export async function withCurrentTaskState<T>(
  connection: {publicClient: StateClient; contracts: {market: Address}; deployBlock?: bigint | undefined},
  functionName: string,
  args: readonly unknown[],
  call: (withState: readonly unknown[]) => Promise<T>,
  beforeRetry: () => Promise<void> = async () => {},
): Promise<T> {
  const states = chainStates(taskStateReader(connection))
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(await withTaskState(states, functionName, args))
    } catch (error) {
      if (!isRevert(toProtocolError(functionName, error), 'StaleTask') || attempt >= STALE_TRIES) throw error
      await beforeRetry()
    }
  }
}
