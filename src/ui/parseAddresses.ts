import {type Address, getAddress, isAddress} from 'viem'

import {InvalidInputError} from '../errors/base.js'

/** A repeatable address flag's values, checked before any chain is asked; the error names `flag`. */
export function parseAddresses(flag: string, values: readonly string[]): Address[] {
  const bad = values.find((value) => !isAddress(value, {strict: false}))
  if (bad !== undefined) throw new InvalidInputError(`${flag}: expected an address (0x followed by 40 hex digits), got "${bad}"`)
  return values.map((value) => getAddress(value))
}
