import path from 'node:path'

import {type Address, type Hex, isAddress, type PrivateKeyAccount, type PublicClient, type WalletClient} from 'viem'

import {createClients} from '../chain/clients.js'
import {readDevnetConfig} from '../chain/devnetConfig.js'
import {InvalidInputError} from '../errors/base.js'
import {type BlobStore, createLocalStore} from '../store/index.js'

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
  stateDir: string
  storeDir?: string | undefined
  /** Read-only commands (tasks list) need no key. */
  needsSigner?: boolean
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
  storeDir: string
  stateDir: string
}

export type SignedConnection = Connection & {walletClient: WalletClient; account: PrivateKeyAccount}

/**
 * Resolves where the chain is and who signs, from flags first and the devnet file second, so that every
 * role command works against a local devnet with no flags and against any EVM chain with them.
 */
export async function connect(options: ConnectOptions): Promise<Connection> {
  const needsDevnet = !options.rpcUrl || !options.market || !options.registry || options.account !== undefined
  const devnet = needsDevnet ? await readDevnetConfig(options.stateDir) : undefined

  const rpcUrl = options.rpcUrl ?? devnet?.rpcUrl
  if (!rpcUrl) throw new InvalidInputError('--rpc-url: expected a JSON-RPC URL (no devnet found)')
  const market = parseAddress('--market', options.market ?? devnet?.contracts.market)
  const registry = parseAddress('--registry', options.registry ?? devnet?.contracts.registry)
  const thresholdsAddress = options.thresholds ?? devnet?.contracts.thresholds
  const thresholds = thresholdsAddress === undefined ? undefined : parseAddress('--threshold-registry', thresholdsAddress)
  // Only when the market is the devnet's: a --market elsewhere has its own game (read from market.game()).
  const gameAddress = options.game ?? (options.market === undefined ? devnet?.contracts.game : undefined)
  const game = gameAddress === undefined ? undefined : parseAddress('--game', gameAddress)
  // The ProtocolConfig likewise; without it readers ask `market.config()`.
  const config = options.market === undefined ? devnet?.contracts.config : undefined
  // The SolverBook likewise; without it readers ask `market.book()`.
  const bookAddress = options.book ?? (options.market === undefined ? devnet?.contracts.book : undefined)
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

  const {publicClient, walletClient, account} = await createClients({rpcUrl, privateKey: privateKey as Hex | undefined})
  const storeDir = path.resolve(options.storeDir ?? devnet?.storeDir ?? path.join(options.stateDir, 'store'))
  return {
    rpcUrl,
    publicClient,
    walletClient,
    account,
    contracts: {market, registry, thresholds, game, config, book},
    store: createLocalStore(storeDir),
    storeDir,
    stateDir: options.stateDir,
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
