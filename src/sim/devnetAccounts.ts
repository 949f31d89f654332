import {type Address, type Hex, toHex} from 'viem'
import {mnemonicToAccount} from 'viem/accounts'

/** anvil's well-known development mnemonic: its accounts are funded at genesis. */
export const devnetMnemonic = 'test test test test test test test test test test test junk'

export type DevnetRole = 'treasury' | 'submitter' | 'solver' | 'verifier' | 'whistleblower'
export type DevnetAccount = {index: number; address: Address; privateKey: Hex; role: DevnetRole}

export type DevnetRoleCounts = {submitters: number; solvers: number; verifiers: number; whistleblowers?: number | undefined}

/** Account 0 deploys and is the treasury; then submitters, solvers, verifiers and whistleblowers in that order. */
export function devnetAccounts(actors: DevnetRoleCounts): DevnetAccount[] {
  const roles: DevnetRole[] = [
    'treasury',
    ...Array<DevnetRole>(actors.submitters).fill('submitter'),
    ...Array<DevnetRole>(actors.solvers).fill('solver'),
    ...Array<DevnetRole>(actors.verifiers).fill('verifier'),
    ...Array<DevnetRole>(actors.whistleblowers ?? 0).fill('whistleblower'),
  ]
  return roles.map((role, index) => {
    const account = mnemonicToAccount(devnetMnemonic, {addressIndex: index})
    const privateKey = account.getHdKey().privateKey
    if (!privateKey) throw new Error(`no private key derived for devnet account ${index}`)
    return {index, address: account.address, privateKey: toHex(privateKey), role}
  })
}

/** The accounts of a scenario's actors: one per submitter, solver, verifier and whistleblower it lists. */
export function scenarioAccounts(actors: {submitters: number; solvers: readonly unknown[]; verifiers: readonly unknown[]; whistleblowers: readonly unknown[]}): DevnetAccount[] {
  return devnetAccounts({submitters: actors.submitters, solvers: actors.solvers.length, verifiers: actors.verifiers.length, whistleblowers: actors.whistleblowers.length})
}
