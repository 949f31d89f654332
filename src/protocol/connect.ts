import {type Address, type Hex, isAddress, type PrivateKeyAccount, type PublicClient, type WalletClient} from 'viem'

import {createClients} from '../chain/clients.js'
import {createStallWatch, type StallWatch} from '../chain/createStallWatch.js'
import {readDevnetConfig} from '../chain/devnetConfig.js'
import {type NetworkFile, readNetworkFile} from '../chain/networkFile.js'
import {InvalidInputError} from '../errors/base.js'
import {type BlobStore, openStore} from '../store/index.js'
import {storeTokenFor} from './storeTokenFor.js'

export type ConnectOptions = {
  rpcUrl?: string | undefined
  privateKey?: string | undefined
  /** Index into the devnet's account list (devnet.json). */
  account?: number | undefined
  market?: string | undefined
  registry?: string | undefined
  /** PinpointGame address; without it (and none in the devnet file) dispute code reads `market.game()`. */
  game?: string | undefined
  /** ThresholdRegistry address (only profiling needs it). */
  thresholds?: string | undefined
  /** SolverBook address; without it (and none in the devnet file) market code reads `market.book()`. */
  book?: string | undefined
  /** A network file from `gensyn deploy` (chain, contracts, store): used where a flag gives no value. */
  network?: string | undefined
  stateDir: string
  /** The blob store: a folder, or the http(s):// URL of a `gensyn store serve` server. */
  store?: string | undefined
  /** @deprecated the same as `store` (a folder or a URL); kept for callers written before HTTP stores. */
  storeDir?: string | undefined
  /** Upload token of an HTTP store (`--store-token`); else the network file's, when its store is the one used. */
  storeToken?: string | undefined
  /** Read-only commands (tasks list) need no key. */
  needsSigner?: boolean
  /**
   * Milliseconds between polls of the chain (blocks, receipts, the role loops' market reads). Default: the
   * network file's `pollMs`, else env GENSYN_POLL_MS, else what createClients measures (docs/multi-host.md).
   */
  pollMs?: number | undefined
  /** Gets the stall watch's lines (no new block while waiting; blocks again). Default: a warning on stderr. */
  onStall?: ((line: string) => void) | undefined
}

export type Connection = {
  rpcUrl: string
  publicClient: PublicClient
  walletClient: WalletClient | undefined
  account: PrivateKeyAccount | undefined
  contracts: {
    registry: Address
    market: Address
    thresholds?: Address | undefined
    game?: Address | undefined
    config?: Address | undefined
    book?: Address | undefined
  }
  store: BlobStore
  /** The folder or URL of the store, as shown in messages. */
  storeLocation: string
  /** The store's folder when it is local; undefined for an HTTP store. */
  storeDir: string | undefined
  stateDir: string
  /** Block of the contracts' deployment (network or devnet file): where event scans can start. */
  deployBlock?: bigint | undefined
  /** The poll interval the user set (flag, env, network file); undefined when it was left to the default. */
  pollMs?: number | undefined
  /** Told of every chain head an actor reads while it waits: says so when blocks stop coming. */
  stallWatch?: StallWatch | undefined
}

export type SignedConnection = Connection & {walletClient: WalletClient; account: PrivateKeyAccount}

/**
 * Resolves where the chain is, who signs and where blobs live: from flags first, then the network file
 * (`--network`, written by `gensyn deploy`), then the devnet file, so that every role command works against
 * a local devnet with no flags and against any EVM chain with a network file or flags.
 */
export async function connect(options: ConnectOptions): Promise<Connection> {
  const network = options.network === undefined ? undefined : await readNetworkFile(options.network)
  // The deployment whose contracts these are: a --market of one's own has its own game, config and book.
  const known = network?.contracts
  const needsDevnet = (!options.rpcUrl && !network) || (!options.market && !known) || (!options.registry && !known) || options.account !== undefined
  const devnet = needsDevnet ? await readDevnetConfig(options.stateDir) : undefined
  const deployment = known ?? devnet?.contracts

  const rpcUrl = options.rpcUrl ?? network?.rpcUrl ?? devnet?.rpcUrl
  if (!rpcUrl) throw new InvalidInputError('--rpc-url: expected a JSON-RPC URL (no devnet found)')
  const market = parseAddress('--market', options.market ?? deployment?.market)
  const registry = parseAddress('--registry', options.registry ?? deployment?.registry)
  const thresholdsAddress = options.thresholds ?? deployment?.thresholds
  const thresholds = thresholdsAddress === undefined ? undefined : parseAddress('--threshold-registry', thresholdsAddress)
  // Only when the market is the deployment's: a --market elsewhere has its own game (read from market.game()).
  const own = options.market === undefined ? deployment : undefined
  const gameAddress = options.game ?? own?.game
  const game = gameAddress === undefined ? undefined : parseAddress('--game', gameAddress)
  // The ProtocolConfig likewise; without it readers ask `market.config()`.
  const config = own?.config
  // The SolverBook likewise; without it readers ask `market.book()`.
  const bookAddress = options.book ?? own?.book
  const book = bookAddress === undefined ? undefined : parseAddress('--book', bookAddress)

  let privateKey = options.privateKey
  if (options.account !== undefined) {
    const entry = devnet?.accounts.find((candidate) => candidate.index === options.account)
    if (!entry) throw new InvalidInputError(`--account: expected a devnet account index below ${devnet?.accounts.length ?? 0}, got ${options.account}`)
    privateKey = entry.privateKey
  }
  if (privateKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(privateKey)) {
    throw new InvalidInputError('--private-key: expected 0x followed by 64 hex digits')
  }
  if (options.needsSigner && !privateKey) {
    throw new InvalidInputError('--private-key: expected a key (or --account N on a devnet, or GENSYN_PRIVATE_KEY)')
  }

  // Opened before the chain is asked anything, so a malformed --store fails at once.
  const {store, location, dir} = openStore(options.store ?? options.storeDir ?? network?.store ?? devnet?.storeDir ?? `${options.stateDir}/store`, {token: storeTokenFor(options, network)})
  const pollMs = options.pollMs ?? network?.pollMs ?? pollMsFromEnv()
  const {publicClient, walletClient, account, chain} = await createClients({rpcUrl, privateKey: privateKey as Hex | undefined, pollingInterval: pollMs})
  if (network) assertSameChain(network, options.network!, rpcUrl, chain.id)
  return {
    rpcUrl,
    publicClient,
    walletClient,
    account,
    contracts: {market, registry, thresholds, game, config, book},
    store,
    storeLocation: location,
    storeDir: dir,
    stateDir: options.stateDir,
    // Only when the contracts are that file's: a --market of one's own was deployed elsewhen.
    deployBlock: options.market === undefined ? (network ? BigInt(network.deployBlock) : devnet?.deployBlock) : undefined,
    pollMs,
    stallWatch: createStallWatch({rpcUrl, report: options.onStall ?? ((line) => process.stderr.write(`warning: ${line}\n`))}),
  }
}

/** GENSYN_POLL_MS, for hosts that set it once rather than pass --poll-interval to every command. */
function pollMsFromEnv(): number | undefined {
  const value = process.env.GENSYN_POLL_MS
  if (value === undefined || value === '') return undefined
  if (!/^\d+$/.test(value) || Number(value) < 10) throw new InvalidInputError(`GENSYN_POLL_MS: expected milliseconds between chain polls (10 or more), got "${value}"`)
  return Number(value)
}

/** A network file's contracts exist on one chain only: an RPC URL of another chain would send money astray. */
function assertSameChain(network: NetworkFile, file: string, rpcUrl: string, chainId: number): void {
  if (chainId !== network.chainId) {
    throw new InvalidInputError(`--network ${file}: expected chain id ${network.chainId} at ${rpcUrl}, the chain there reports ${chainId}`)
  }
}

export function requireSigner(connection: Connection): SignedConnection {
  if (!connection.walletClient || !connection.account) {
    throw new InvalidInputError('--private-key: expected a key (or --account N on a devnet, or GENSYN_PRIVATE_KEY)')
  }
  return connection as SignedConnection
}

function parseAddress(flag: string, value: string | undefined): Address {
  if (!value || !isAddress(value)) throw new InvalidInputError(`${flag}: expected a contract address (0x + 40 hex), got ${value ?? 'nothing'}`)
  return value
}
