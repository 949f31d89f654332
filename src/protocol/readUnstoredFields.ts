import {type Hex, type PublicClient, zeroAddress, zeroHash} from 'viem'

import {getLogsPaged} from '../chain/getLogsPaged.js'
import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {UnexpectedChainValueError} from './errors.js'

export type ReadUnstoredFieldsParameters = {
  taskId: bigint
  /** The stored fields the three hashes follow from (getTask's view). */
  verifier: Hex
  commitBlock: bigint
  verdictBlock: bigint
}

export type ReadUnstoredFieldsReturnType = {specHash: Hex; randomness: Hex; reportHash: Hex; distance: bigint}

type Verdict = Pick<ReadUnstoredFieldsReturnType, 'reportHash' | 'distance'>

/** What one public client has read already: none of it changes once on chain (a devnet does not reorganise). */
type Known = {
  specs: Map<string, Hex>
  /** The last block whose TaskSubmitted events are in `specs`, per market. */
  specsScannedTo: Map<string, bigint>
  /** The scan of TaskSubmitted events under way, per market. */
  specScans: Map<string, Promise<void>>
  blockHashes: Map<bigint, Hex>
  verdicts: Map<string, Verdict>
}

const knownByClient = new WeakMap<PublicClient, Known>()

type Reader = Pick<Connection, 'publicClient' | 'contracts'> & Partial<Pick<Connection, 'deployBlock'>>

/**
 * The fields a task does not store (contracts/TaskMarketBase.sol, `Task`; docs/market.md, "What a task stores"),
 * read where the chain fixed them:
 * - the spec hash from the task's TaskSubmitted event (one scan from the deployment reads every task's);
 * - the verification randomness, `blockhash(commitBlock + 1)` as claimVerification fixed it, while a verifier
 *   holds the task (0 otherwise, as the stored field was);
 * - the report hash and the distance from the VerdictPosted event of block `verdictBlock` (0 before a verdict).
 * Each is read once per public client and remembered.
 *
 * @throws {@link UnexpectedChainValueError} when the chain lacks the event a stored field says is there
 */
export async function readUnstoredFields(
  connection: Reader,
  parameters: ReadUnstoredFieldsParameters,
): Promise<ReadUnstoredFieldsReturnType> {
  const known = knownOf(connection.publicClient)
  const [specHash, randomness, verdict] = await Promise.all([
    specHashOf(connection, known, parameters.taskId),
    parameters.verifier === zeroAddress ? zeroHash : blockHashOf(connection.publicClient, known, parameters.commitBlock + 1n),
    parameters.verdictBlock === 0n ? {reportHash: zeroHash, distance: 0n} : verdictOf(connection, known, parameters.taskId, parameters.verdictBlock),
  ])
  return {specHash, randomness, ...verdict}
}

function knownOf(client: PublicClient): Known {
  let known = knownByClient.get(client)
  if (!known) {
    known = {specs: new Map(), specsScannedTo: new Map(), specScans: new Map(), blockHashes: new Map(), verdicts: new Map()}
    knownByClient.set(client, known)
  }
  return known
}

async function specHashOf(connection: Reader, known: Known, taskId: bigint): Promise<Hex> {
  const {market} = connection.contracts
  const key = `${market}:${taskId}`
  // A pass reads every task at once: they share one scan rather than each starting their own.
  await known.specScans.get(market)
  if (!known.specs.has(key)) await (known.specScans.get(market) ?? scanSpecs(connection, known))
  const specHash = known.specs.get(key)
  if (!specHash) throw new UnexpectedChainValueError(`getTask failed: no TaskSubmitted event for task ${taskId} up to block ${known.specsScannedTo.get(market)}`)
  return specHash
}

/** Reads the TaskSubmitted events after the last scan (from the deployment at first) up to the head. */
function scanSpecs(connection: Reader, known: Known): Promise<void> {
  const {market} = connection.contracts
  const client = connection.publicClient
  const scan = (async () => {
    const fromBlock = (known.specsScannedTo.get(market) ?? (connection.deployBlock ?? 0n) - 1n) + 1n
    const toBlock = await client.getBlockNumber({cacheTime: 0})
    const events = await getLogsPaged(client, {fromBlock, toBlock}, (range) => client.getContractEvents({address: market, abi: taskMarketAbi, eventName: 'TaskSubmitted', ...range}))
    for (const event of events) known.specs.set(`${market}:${event.args.id}`, event.args.specHash!)
    known.specsScannedTo.set(market, toBlock)
  })().finally(() => known.specScans.delete(market))
  known.specScans.set(market, scan)
  return scan
}

async function blockHashOf(client: PublicClient, known: Known, blockNumber: bigint): Promise<Hex> {
  const cached = known.blockHashes.get(blockNumber)
  if (cached) return cached
  const {hash} = await client.getBlock({blockNumber})
  known.blockHashes.set(blockNumber, hash)
  return hash
}

async function verdictOf(connection: Reader, known: Known, taskId: bigint, verdictBlock: bigint): Promise<Verdict> {
  const {market} = connection.contracts
  const key = `${market}:${taskId}:${verdictBlock}`
  const cached = known.verdicts.get(key)
  if (cached) return cached
  const [event] = await connection.publicClient.getContractEvents({
    address: market,
    abi: taskMarketAbi,
    eventName: 'VerdictPosted',
    args: {id: taskId},
    fromBlock: verdictBlock,
    toBlock: verdictBlock,
  })
  if (!event) throw new UnexpectedChainValueError(`getTask failed: no VerdictPosted event for task ${taskId} in block ${verdictBlock}`)
  const verdict = {reportHash: event.args.reportHash!, distance: event.args.distance!}
  known.verdicts.set(key, verdict)
  return verdict
}
