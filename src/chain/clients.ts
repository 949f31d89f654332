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

export type GensynPublicClient = PublicClient<HttpTransport, Chain>
export type GensynWalletClient = WalletClient<HttpTransport, Chain, PrivateKeyAccount>

export type CreateClientsParameters = {
  rpcUrl: string
  /** Signs transactions; without it only the public client is returned. */
  privateKey?: Hex | undefined
  /** Skips the eth_chainId round trip when known. */
  chainId?: number | undefined
  /** How often to poll for blocks and receipts, in ms. Default 100 (local chains mine instantly). */
  pollingInterval?: number | undefined
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
  const pollingInterval = parameters.pollingInterval ?? 100
  const transport = http(rpcUrl)

  let chainId = parameters.chainId
  if (chainId === undefined) {
    try {
      chainId = await createPublicClient({transport: http(rpcUrl, {retryCount: 1})}).getChainId()
    } catch (error) {
      throw new ChainUnreachableError(rpcUrl, error)
    }
  }
  const chain = chainFor(chainId, rpcUrl)

  const publicClient = createPublicClient({chain, transport, pollingInterval})
  if (!privateKey) return {chain, publicClient, walletClient: undefined, account: undefined}
  const account = privateKeyToAccount(privateKey)
  const walletClient = createWalletClient({chain, transport, account, pollingInterval})
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
