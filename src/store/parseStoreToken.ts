import {InvalidInputError} from '../errors/base.js'

/** Printable ASCII without spaces (it travels in an HTTP header), long enough not to be guessed. */
const tokenPattern = /^[\x21-\x7e]{16,512}$/

/**
 * Checks a store upload token (`store serve --token`, `--store-token`, a network file's `storeToken`);
 * `field` names where it came from. The message never repeats the token: it is a secret.
 */
export function parseStoreToken(value: string, field: string): string {
  if (tokenPattern.test(value)) return value
  const problem = value.length < 16 || value.length > 512 ? `got ${value.length} characters` : 'got a space or a character outside printable ASCII'
  throw new InvalidInputError(`${field}: expected a token of 16 to 512 printable ASCII characters without spaces, ${problem}`)
}
