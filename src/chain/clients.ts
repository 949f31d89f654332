import {
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type HttpTransport,
  type PrivateKeyAccount,
  type PublicClient,
  type WalletClient,
} from 'viem'
import {privateKeyToAccount} from 'viem/accounts'
import {anvil} from 'viem/chains'

import {ChainUnreachableError} from './errors.js'
import {retryingTransport} from './retryingTransport.js'

export type GensynPublicClient = PublicClient<HttpTransport, Chain>
export type GensynWalletClient = WalletClient<HttpTransport, Chain, PrivateKeyAccount>

export type CreateClientsParameters = {
  rpcUrl: string
  /** Signs transactions; without it only the public client is returned. */
  privateKey?: Hex | undefined
  /** Skips the eth_chainId round trip when known. */
  chainId?: number | undefined
  /**
   * How often to poll for blocks and receipts, in ms. Default: the chain's block time measured from its last
   * blocks, else 100 ms on a loopback URL (a devnet anvil mines at once) and 1 s elsewhere (docs/multi-host.md).
   */
  pollingInterval?: number | undefined
  /** Retries of a transient RPC failure before giving up (default 6, 16-24 s in all; env GENSYN_RPC_RETRIES). */
  retries?: number | undefined
  /**
   * Whether the public client sends the reads started together as one JSON-RPC batch (default true). Each read then
   * waits a timer tick (about 1 ms) before it goes: a caller that reads one at a time in a tight loop is faster
   * without (the contract property test: 2,764 actions in 26 s unbatched, 32-36 s batched).
   */
  batch?: boolean | undefined
}

export type ReadClients = {chain: Chain; publicClient: GensynPublicClient; walletClient: undefined; account: undefined}
export type SignerClients = {chain: Chain; publicClient: GensynPublicClient; walletClient: GensynWalletClient; account: PrivateKeyAccount}
export type Clients = {
  chain: Chain
  publicClient: GensynPublicClient
  walletClient: GensynWalletClient | undefined
  account: PrivateKeyAccount | undefined
}

/**
 * viem clients for a JSON-RPC endpoint. The chain is viem's anvil definition with the endpoint's real chain
 * id (asked with eth_chainId unless given) and the endpoint as its RPC URL, so the same code works against
 * a devnet and any other EVM chain. Throws {@link ChainUnreachableError} when the endpoint does not answer.
 */
export async function createClients(parameters: CreateClientsParameters & {privateKey: Hex}): Promise<SignerClients>
export async function createClients(parameters: CreateClientsParameters & {privateKey?: undefined}): Promise<ReadClients>
export async function createClients(parameters: CreateClientsParameters): Promise<Clients>
export async function createClients(parameters: CreateClientsParameters): Promise<Clients> {
  const {rpcUrl, privateKey} = parameters
  const retries = parameters.retries ?? retriesFromEnv()
  // Reads in batches: the reads one step starts together (a role's poll reads every task, the market's state and its
  // offer) go out as one HTTP request; an idle solver's CPU went from 29 to 18 ms a second (docs/benchmarks.md,
  // "Actor CPU"). Writes one at a time: a transaction's calls are sequential, and a batch would only add its wait to each.
  // GENSYN_RPC_BATCH=0: for a provider that refuses JSON-RPC batches (docs/multi-host.md, "RPC limits and faults").
  const reads = retryingTransport(rpcUrl, {retries, batch: parameters.batch ?? process.env.GENSYN_RPC_BATCH !== '0'})
  const writes = retryingTransport(rpcUrl, {retries})

  let chainId = parameters.chainId
  if (chainId === undefined) {
    try {
      chainId = await createPublicClient({transport: http(rpcUrl, {retryCount: 1})}).getChainId()
    } catch (error) {
      throw new ChainUnreachableError(rpcUrl, error)
    }
  }
  const chain = chainFor(chainId, rpcUrl)
  const pollingInterval = parameters.pollingInterval ?? (await defaultPollingInterval(createPublicClient({chain, transport: http(rpcUrl, {retryCount: 1})}), rpcUrl))

  // cacheTime 0: viem otherwise answers getBlockNumber from a cache as old as the polling interval, and a
  // head read that late let every dispute agent and the test that drove them miss a committee's draw while
  // blocks were mined, so the dispute timed out Void (createDisputeAgent.chain.test, 3 of 7 runs).
  const publicClient = createPublicClient({chain, transport: reads, pollingInterval, cacheTime: 0})
  if (!privateKey) return {chain, publicClient, walletClient: undefined, account: undefined}
  const account = privateKeyToAccount(privateKey)
  const walletClient = createWalletClient({chain, transport: writes, account, pollingInterval})
  return {chain, publicClient, walletClient, account}
}

/** viem's anvil chain with another id and RPC URL (named after the id when it is not anvil's 31337). */
export function chainFor(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    ...anvil,
    id: chainId,
    name: chainId === anvil.id ? anvil.name : `Chain ${chainId}`,
    rpcUrls: {default: {http: [rpcUrl]}},
  })
}

/** Blocks looked back over to measure a chain's block time. */
const blockTimeSample = 5n

/**
 * The poll interval a client of this chain needs when none is configured. On a loopback URL 100 ms: a local node
 * (the devnet's anvil) mines a transaction at once and has no rate limit, so the devnet keeps its speed.
 * Elsewhere the chain's block time (nothing new can be seen sooner), measured over its last few blocks and kept
 * within 1 s .. 12 s; 1 s when it cannot be measured (a young chain, blocks with equal timestamps).
 */
export async function defaultPollingInterval(client: Pick<PublicClient, 'getBlock'>, rpcUrl: string): Promise<number> {
  if (isLoopback(rpcUrl)) return 100
  try {
    const latest = await client.getBlock({blockTag: 'latest'})
    if (latest.number === null || latest.number < blockTimeSample) return 1000
    const earlier = await client.getBlock({blockNumber: latest.number - blockTimeSample})
    const ms = (Number(latest.timestamp - earlier.timestamp) * 1000) / Number(blockTimeSample)
    return Math.min(12_000, Math.max(1000, Math.round(ms)))
  } catch {
    return 1000
  }
}

function isLoopback(rpcUrl: string): boolean {
  try {
    return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(rpcUrl).hostname)
  } catch {
    return false
  }
}

function retriesFromEnv(): number | undefined {
  const value = process.env.GENSYN_RPC_RETRIES
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined
}
