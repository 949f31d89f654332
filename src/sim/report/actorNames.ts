import type {RosterEntry} from '../actorRoster.js'
import type {DevnetAccount} from '../devnetAccounts.js'

/** Every account's name and strategy: the roster's actors, then submitters and the treasury. */
export function actorNames(accounts: readonly DevnetAccount[], roster: readonly RosterEntry[]): Map<string, {name: string; strategy?: string}> {
  const names = new Map<string, {name: string; strategy?: string}>()
  for (const entry of roster) names.set(entry.account.address.toLowerCase(), {name: entry.name, strategy: entry.strategy})
  let submitters = 0
  for (const account of accounts) {
    if (names.has(account.address.toLowerCase())) continue
    names.set(account.address.toLowerCase(), {name: account.role === 'submitter' ? `submitter-${++submitters}` : account.role})
  }
  return names
}
