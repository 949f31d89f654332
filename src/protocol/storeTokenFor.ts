import type {NetworkFile} from '../chain/networkFile.js'
import {parseStoreToken} from '../store/index.js'

/**
 * The upload token for the store a command uses: --store-token (or GENSYN_STORE_TOKEN) first; else the
 * network file's, but only when the store is the network file's too, so that a token never travels to a
 * server it was not made for (a --store of one's own gets no token from the file).
 */
export function storeTokenFor(options: {store?: string | undefined; storeDir?: string | undefined; storeToken?: string | undefined}, network: NetworkFile | undefined): string | undefined {
  if (options.storeToken !== undefined) return parseStoreToken(options.storeToken, '--store-token')
  const storeIsNetworks = options.store === undefined && options.storeDir === undefined && network?.store !== undefined
  return storeIsNetworks ? network.storeToken : undefined
}
