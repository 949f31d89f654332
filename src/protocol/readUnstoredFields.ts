import {encodeEventTopics, formatLog, type Hex, type Log, maxUint256, numberToHex, parseEventLogs, type PublicClient, type RpcLog, zeroAddress, zeroHash} from 'viem'

import {getLogsPaged} from '../chain/getLogsPaged.js'
import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {UnexpectedChainValueError} from './errors.js'
import type {Task} from './types.js'

export type ReadUnstoredFieldsParameters = {
  taskId: bigint
  /** The stored fields the others follow from (getTask's view). */
  attempts: number
  forcedRevealed: boolean
  verifier: Hex
  commitBlock: bigint
  verdictBlock: bigint
  /** The forced-error commitment's slot: the secret's hash until the commit, then the fold of it, seed and seal. */
  secretHash: Hex
  /** The seed slot: what fixSeed recorded before the commit (0 otherwise). */
  seed: Hex
}

export type ReadUnstoredFieldsReturnType = Pick<Task, 'specHash' | 'manifestHash' | 'randomness' | 'reportHash' | 'distance' | 'secretHash' | 'seed' | 'sealedHonest'>

type Verdict = Pick<ReadUnstoredFieldsReturnType, 'reportHash' | 'distance'>

/** What the attempt's events fixed about its proof and its forced-error coin. */
type Attempt = Pick<ReadUnstoredFieldsReturnType, 'manifestHash' | 'secretHash' | 'seed' | 'sealedHonest'>

/**
 * How many blocks deep what a reader saw counts as final, so that it is remembered: none on a development chain
 * (anvil's and Hardhat's id 31337: nothing reorganises it), 64 elsewhere (a public chain may replace its latest
 * blocks, and with them a task's events or the block its randomness is drawn from). Younger reads are made again.
 */
export function finalityDepth(chainId: number | undefined): bigint {
  return chainId === 31337 ? 0n : 64n
}

/** What one public client has read from blocks deep enough to be final (finalityDepth). */
type Known = {
  specs: Map<string, Hex>
  /** The last block whose TaskSubmitted events are all in `specs`, per market. */
  specsFinalTo: Map<string, bigint>
  /** The scan of TaskSubmitted events under way, per market, with every spec hash it found. */
  specScans: Map<string, Promise<Map<string, Hex>>>
  attempts: Map<string, Attempt>
  blockHashes: Map<string, Hex>
  verdicts: Map<string, Verdict>
}

const knownByClient = new WeakMap<PublicClient, Known>()

type Reader = Pick<Connection, 'publicClient' | 'contracts'> & Partial<Pick<Connection, 'deployBlock'>>

/**
 * The fields a task does not store (contracts/TaskMarketBase.sol, `Task`; docs/market.md, "What a task stores"),
 * read where the chain fixed them:
 * - the spec hash from the task's TaskSubmitted event (one scan from the deployment reads every task's);
 * - the manifest hash, once the attempt committed (`commitBlock` not 0), from its ProofCommitted event, or from the
 *   VerificationReopened that put a forced error's honest proof in its place (`forcedRevealed`);
 * - the forced-error coin's secret hash, seed and seal: before the commit the stored slots are them (the seal is 0);
 *   the commit folds all three into the secret hash's slot, and they are then read from the attempt's TaskClaimed
 *   and ProofCommitted events;
 * - the verification randomness, `blockhash(commitBlock + 1)` as claimVerification fixed it, while a verifier
 *   holds the task (0 otherwise, as the stored field was);
 * - the report hash and the distance from the VerdictPosted event of block `verdictBlock` (0 before a verdict).
 * Each is remembered per public client once its block is final (finalityDepth).
 *
 * @throws {@link UnexpectedChainValueError} when the chain lacks the event a stored field says is there
 */
export async function readUnstoredFields(connection: Reader, parameters: ReadUnstoredFieldsParameters): Promise<ReadUnstoredFieldsReturnType> {
  const client = connection.publicClient
  const known = knownOf(client)
  // A development chain does not reorganise: whatever was read is final, and no head is needed to say so. Elsewhere
  // the head: the reads of one pass start together and share viem's one request for it.
  const depth = finalityDepth(client.chain?.id)
  const finalTo = depth === 0n ? maxUint256 : (await client.getBlockNumber()) - depth
  const beforeCommit = {manifestHash: zeroHash, secretHash: parameters.secretHash, seed: parameters.seed, sealedHonest: zeroHash}
  const [specHash, attempt, randomness, verdict] = await Promise.all([
    specHashOf(connection, known, finalTo, parameters.taskId),
    parameters.commitBlock === 0n ? beforeCommit : attemptOf(connection, known, finalTo, parameters),
    parameters.verifier === zeroAddress ? zeroHash : blockHashOf(client, known, finalTo, parameters.commitBlock + 1n),
    parameters.verdictBlock === 0n ? {reportHash: zeroHash, distance: 0n} : verdictOf(connection, known, finalTo, parameters.taskId, parameters.verdictBlock),
  ])
  return {specHash, ...attempt, randomness, ...verdict}
}

function knownOf(client: PublicClient): Known {
  let known = knownByClient.get(client)
  if (!known) {
    known = {specs: new Map(), specsFinalTo: new Map(), specScans: new Map(), attempts: new Map(), blockHashes: new Map(), verdicts: new Map()}
    knownByClient.set(client, known)
  }
  return known
}

async function specHashOf(connection: Reader, known: Known, finalTo: bigint, taskId: bigint): Promise<Hex> {
  const {market} = connection.contracts
  const key = `${market}:${taskId}`
  const cached = known.specs.get(key)
  if (cached) return cached
  // A pass reads every task at once: they share one scan rather than each starting their own; a scan that began
  // before this task's submission may not have it, so a miss scans again.
  const found = (await known.specScans.get(market))?.get(key) ?? (await (known.specScans.get(market) ?? scanSpecs(connection, known, finalTo))).get(key)
  if (!found) throw new UnexpectedChainValueError(`getTask failed: no TaskSubmitted event for task ${taskId}`)
  return found
}

/** Reads the TaskSubmitted events after the last final block scanned (from the deployment at first) up to the head. */
function scanSpecs(connection: Reader, known: Known, finalTo: bigint): Promise<Map<string, Hex>> {
  const {market} = connection.contracts
  const client = connection.publicClient
  const scan = (async () => {
    const fromBlock = (known.specsFinalTo.get(market) ?? (connection.deployBlock ?? 0n) - 1n) + 1n
    // To the head as it is now (not a cached one): the task being read was submitted at or before it.
    const toBlock = await client.getBlockNumber({cacheTime: 0})
    const events = await getLogsPaged(client, {fromBlock, toBlock}, (range) =>
      client.getContractEvents({address: market, abi: taskMarketAbi, eventName: 'TaskSubmitted', ...range}),
    )
    const found = new Map(events.map((event) => [`${market}:${event.args.id}`, event.args.specHash!] as const))
    const finalEnd = finalTo < toBlock ? finalTo : toBlock
    for (const event of events) if (event.blockNumber <= finalEnd) known.specs.set(`${market}:${event.args.id}`, event.args.specHash!)
    if (finalEnd >= fromBlock) known.specsFinalTo.set(market, finalEnd)
    return found
  })().finally(() => known.specScans.delete(market))
  known.specScans.set(market, scan)
  return scan
}

const attemptEvents = ['TaskReopened', 'TaskClaimed', 'ProofCommitted', 'VerificationReopened'] as const

/**
 * A committed attempt's proof and coin: the manifest of its proof (the last one its ProofCommitted or a
 * VerificationReopened with a manifest named), its TaskClaimed's secret hash and its ProofCommitted's seed and seal.
 */
function attemptOf(connection: Reader, known: Known, finalTo: bigint, parameters: ReadUnstoredFieldsParameters): Promise<Attempt> {
  const {market} = connection.contracts
  const client = connection.publicClient
  return remembered(known.attempts, `${market}:${parameters.taskId}:${parameters.attempts}:${parameters.forcedRevealed}`, finalTo, async () => {
    // One request for the task's four kinds of event (viem's getLogs filters by argument for one event only).
    const topics = [attemptEvents.map((eventName) => encodeEventTopics({abi: taskMarketAbi, eventName})[0]!), numberToHex(parameters.taskId, {size: 32})]
    const logs = await getLogsPaged(client, {fromBlock: connection.deployBlock ?? 0n}, async (range): Promise<Log[]> => {
      const params = [{address: market, topics, fromBlock: numberToHex(range.fromBlock), toBlock: numberToHex(range.toBlock)}]
      return ((await client.request({method: 'eth_getLogs', params} as never)) as RpcLog[]).map((log) => formatLog(log))
    })
    let claimed: Hex | undefined
    let attempt: {value: Attempt; block: bigint} | undefined
    for (const log of parseEventLogs({abi: taskMarketAbi, logs, eventName: [...attemptEvents]})) {
      if (log.eventName === 'TaskReopened') [claimed, attempt] = [undefined, undefined]
      else if (log.eventName === 'TaskClaimed') claimed = log.args.secretHash
      else if (log.eventName === 'ProofCommitted') {
        const {manifestHash, seed, sealedHonest} = log.args
        attempt = {value: {manifestHash, secretHash: claimed ?? zeroHash, seed, sealedHonest}, block: log.blockNumber}
      } else if (attempt && log.args.manifestHash !== zeroHash) attempt = {value: {...attempt.value, manifestHash: log.args.manifestHash}, block: log.blockNumber}
    }
    if (!attempt || !claimed) throw new UnexpectedChainValueError(`getTask failed: no ProofCommitted event for task ${parameters.taskId}'s attempt ${parameters.attempts}`)
    return attempt
  })
}

function blockHashOf(client: PublicClient, known: Known, finalTo: bigint, blockNumber: bigint): Promise<Hex> {
  return remembered(known.blockHashes, String(blockNumber), finalTo, async () => ({value: (await client.getBlock({blockNumber})).hash, block: blockNumber}))
}

function verdictOf(connection: Reader, known: Known, finalTo: bigint, taskId: bigint, verdictBlock: bigint): Promise<Verdict> {
  const {market} = connection.contracts
  return remembered(known.verdicts, `${market}:${taskId}:${verdictBlock}`, finalTo, async () => {
    const [event] = await connection.publicClient.getContractEvents({
      address: market,
      abi: taskMarketAbi,
      eventName: 'VerdictPosted',
      args: {id: taskId},
      fromBlock: verdictBlock,
      toBlock: verdictBlock,
    })
    if (!event) throw new UnexpectedChainValueError(`getTask failed: no VerdictPosted event for task ${taskId} in block ${verdictBlock}`)
    return {value: {reportHash: event.args.reportHash!, distance: event.args.distance!}, block: verdictBlock}
  })
}

/** What `read` returns under `key`: read once and kept if the block it came from is final (at or before `finalTo`). */
async function remembered<T>(cache: Map<string, T>, key: string, finalTo: bigint, read: () => Promise<{value: T; block: bigint}>): Promise<T> {
  const cached = cache.get(key)
  if (cached !== undefined) return cached
  const {value, block} = await read()
  if (block <= finalTo) cache.set(key, value)
  return value
}
