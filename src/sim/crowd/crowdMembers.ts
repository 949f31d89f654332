import {privateKeyToAddress} from 'viem/accounts'

import {deriveSeed} from '../../random/deriveSeed.js'
import type {RosterEntry} from '../actorRoster.js'
import type {DevnetAccount} from '../devnetAccounts.js'
import type {CrowdMember, CrowdRole, CrowdStrategy} from './types.js'
import type {Crowd} from './crowdSchema.js'

export type CrowdMembers = {
  /** The settings they play by. */
  crowd: Crowd
  members: CrowdMember[]
  /** Their devnet accounts, numbered after the scenario's own (the devnet funds them and checks their money). */
  accounts: DevnetAccount[]
  /** Their names for the report (every member but the submitters, which the report numbers itself). */
  roster: RosterEntry[]
}

/**
 * Names and keys every member of a crowd: `crowd-submitter-N`, `crowd-solver-N` (`crowd-cheater-N` for the first
 * `cheaters`), `crowd-verifier-N` (`crowd-lazy-verifier-N` for the first `lazyVerifiers`), `crowd-whistleblower-N`.
 * Keys derive from the run's seed and the name, as a seeded scenario's actors' do.
 */
export function crowdMembers(crowd: Crowd, seed: number, firstIndex: number): CrowdMembers {
  const plan: {role: CrowdRole; strategy: CrowdStrategy; kind: string}[] = [
    ...Array.from({length: crowd.submitters}, () => ({role: 'submitter' as const, strategy: 'honest' as const, kind: 'crowd-submitter'})),
    ...Array.from({length: crowd.solvers}, (_, i) => (i < crowd.cheaters ? {role: 'solver' as const, strategy: 'cheater' as const, kind: 'crowd-cheater'} : {role: 'solver' as const, strategy: 'honest' as const, kind: 'crowd-solver'})),
    ...Array.from({length: crowd.verifiers}, (_, i) => (i < crowd.lazyVerifiers ? {role: 'verifier' as const, strategy: 'lazy' as const, kind: 'crowd-lazy-verifier'} : {role: 'verifier' as const, strategy: 'honest' as const, kind: 'crowd-verifier'})),
    ...Array.from({length: crowd.whistleblowers}, () => ({role: 'whistleblower' as const, strategy: 'honest' as const, kind: 'crowd-whistleblower'})),
  ]
  const numbers = new Map<string, number>()
  const result: CrowdMembers = {crowd, members: [], accounts: [], roster: []}
  for (const [offset, {role, strategy, kind}] of plan.entries()) {
    const number = (numbers.get(kind) ?? 0) + 1
    numbers.set(kind, number)
    const name = `${kind}-${number}`
    const privateKey = deriveSeed(seed, `key:${name}`)
    const account: DevnetAccount = {index: firstIndex + offset, address: privateKeyToAddress(privateKey), privateKey, role}
    result.members.push({name, role, strategy, address: account.address, privateKey})
    result.accounts.push(account)
    if (role !== 'submitter') result.roster.push({account, role, name, strategy: reportStrategy(role, strategy), args: []})
  }
  return result
}

/**
 * The strategy the report judges a member by. A crowd measures how many cheats pass, so its cheaters are
 * `crowd-cheater` (a paid one is counted, not a failure), and a verifier that replays a sample is `sampling`: one
 * whose sample missed the wrong segment is slashed when a whistleblower catches it, which is the protocol at work.
 */
function reportStrategy(role: CrowdRole, strategy: CrowdStrategy): string {
  if (strategy === 'cheater') return 'crowd-cheater'
  return role === 'verifier' && strategy === 'honest' ? 'sampling' : strategy
}

/** Members dealt round robin over `processes`, submitters first, so every process hosts every role. */
export function dealMembers(members: readonly CrowdMember[], processes: number): CrowdMember[][] {
  const shares: CrowdMember[][] = Array.from({length: processes}, () => [])
  for (const [index, member] of members.entries()) shares[index % processes]!.push(member)
  return shares
}

/** Tasks each submitter posts: `tasks` shared out as evenly as it goes, the first ones taking the remainder. */
export function submitterQuotas(members: readonly CrowdMember[], tasks: number): Record<string, number> {
  const submitters = members.filter((member) => member.role === 'submitter')
  return Object.fromEntries(submitters.map((member, index) => [member.name, Math.floor(tasks / submitters.length) + (index < tasks % submitters.length ? 1 : 0)]))
}
