import type {ConnectOptions} from '../protocol/connect.js'

type ConnectionFlagValues = {
  'rpc-url'?: string | undefined
  'private-key'?: string | undefined
  account?: number | undefined
  market?: string | undefined
  registry?: string | undefined
  game?: string | undefined
  book?: string | undefined
  'state-dir': string
  store?: string | undefined
  'store-token'?: string | undefined
  network?: string | undefined
  'poll-interval'?: number | undefined
}

export function connectOptionsFrom(flags: ConnectionFlagValues, needsSigner = false): ConnectOptions {
  return {
    rpcUrl: flags['rpc-url'],
    privateKey: flags['private-key'],
    account: flags.account,
    market: flags.market,
    registry: flags.registry,
    game: flags.game,
    book: flags.book,
    network: flags.network,
    stateDir: flags['state-dir'],
    store: flags.store,
    storeToken: flags['store-token'],
    pollMs: flags['poll-interval'],
    needsSigner,
  }
}
