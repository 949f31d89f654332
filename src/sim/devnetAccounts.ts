import {type Address, type Hex, toHex} from 'viem'
import {mnemonicToAccount, privateKeyToAddress} from 'viem/accounts'

import {deriveSeed} from '../random/deriveSeed.js'
import {DevnetAccountError} from './errors.js'

/** anvil's well-known development mnemonic: its accounts are funded at genesis. */
export const devnetMnemonic = 'test test test test test test test test test test test junk'

export type DevnetRole = 'treasury' | 'submitter' | 'solver' | 'verifier' | 'whistleblower'
export type DevnetAccount = {index: number; address: Address; privateKey: Hex; role: DevnetRole}

export type DevnetRoleCounts = {submitters: number; solvers: number; verifiers: number; whistleblowers?: number | undefined}

/**
 * Account 0 deploys and is the treasury; then submitters, solvers, verifiers and whistleblowers in that order.
 * Without a seed they are anvil's mnemonic accounts (funded at genesis); with one, each key derives from the
 * seed and the account's name (`treasury`, `solver-2`, ...), and the devnet funds them itself.
 */
export function devnetAccounts(actors: DevnetRoleCounts, seed?: number): DevnetAccount[] {
  const roles: DevnetRole[] = [
    'treasury',
    ...Array<DevnetRole>(actors.submitters).fill('submitter'),
    ...Array<DevnetRole>(actors.solvers).fill('solver'),
    ...Array<DevnetRole>(actors.verifiers).fill('verifier'),
    ...Array<DevnetRole>(actors.whistleblowers ?? 0).fill('whistleblower'),
  ]
  if (seed !== undefined) {
    const numbers = new Map<DevnetRole, number>()
    return roles.map((role, index) => {
      const number = (numbers.get(role) ?? 0) + 1
      numbers.set(role, number)
      const privateKey = deriveSeed(seed, `key:${role === 'treasury' ? role : `${role}-${number}`}`)
      return {index, address: privateKeyToAddress(privateKey), privateKey, role}
    })
  }
  return roles.map((role, index) => {
    const account = mnemonicToAccount(devnetMnemonic, {addressIndex: index})
    const privateKey = account.getHdKey().privateKey
    if (!privateKey) throw new DevnetAccountError(`no private key derived for devnet account ${index}`)
    return {index, address: account.address, privateKey: toHex(privateKey), role}
  })
}

/** The accounts of a scenario's actors: one per submitter, solver, verifier and whistleblower it lists. */
export function scenarioAccounts(actors: {submitters: number; solvers: readonly unknown[]; verifiers: readonly unknown[]; whistleblowers: readonly unknown[]}, seed?: number): DevnetAccount[] {
  return devnetAccounts({submitters: actors.submitters, solvers: actors.solvers.length, verifiers: actors.verifiers.length, whistleblowers: actors.whistleblowers.length}, seed)
}
