import {InvalidInputError} from '../errors/base.js'

export function parseTaskId(value: string): bigint {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidInputError(`id: expected a task id (a positive integer), got "${value}"`)
  return BigInt(value)
}
