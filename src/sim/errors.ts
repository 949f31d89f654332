import {BaseError} from '../errors/base.js'

/** The devnet's accounts could not be derived (a mnemonic path that yields no private key). */
export class DevnetAccountError extends BaseError {
  override name = 'DevnetAccountError'
}
