import {type Address, getAddress, isAddress} from 'viem'

import {InvalidInputError} from '../errors/base.js'

/** A repeatable address flag's values, checked before any chain is asked; the error names `flag`. */
export function parseAddresses(flag: string, values: readonly string[]): Address[] {
  const bad = values.find((value) => !isAddress(value, {strict: false}))
  if (bad !== undefined) throw new InvalidInputError(`${flag}: expected an address (0x + 40 hex), got ${bad}`)
  return values.map((value) => getAddress(value))
}

/** An optional address flag's value (undefined when absent), checked like `parseAddresses`. */
export function parseAddress(flag: string, value: string | undefined): Address | undefined {
  return value === undefined ? undefined : parseAddresses(flag, [value])[0]
}
