import type {Address} from 'viem'

import {addressArg, type MarketLogEntry, taskIdOf} from './readMarketLog.js'
import type {DetectionRow} from './types.js'

export type DetectionActor = {address: string; name: string; role: string; strategy: string}

type Play = {strategy: string; role: 'solver' | 'verifier' | 'whistleblower'; account: string; taskId: string; state: 'open' | 'caught' | 'clean'; by?: string}

const zeroAddress = '0x0000000000000000000000000000000000000000'

/**
 * The detection matrix: for every role and strategy, how many of its plays were caught (its stake slashed,
 * or its proof rejected) and by whom, and how many were not. A play is a solver's claim, a verifier's
 * verification or a whistleblower's challenge, followed through the market's events until the task
 * settles, is reopened or expires; a forced error (the protocol's own deliberate wrong proof) is caught when
 * someone is paid for catching it. Honest rows should show no catches: one there is an honest actor slashed.
 */
export function detectionMatrix(entries: readonly MarketLogEntry[], actors: readonly DetectionActor[]): DetectionRow[] {
  const byAddress = new Map(actors.map((actor) => [actor.address.toLowerCase(), actor]))
  const nameOf = (address: string | undefined) => (address === undefined ? 'unknown' : (byAddress.get(address.toLowerCase())?.name ?? address))
  const rowOf = (role: string, strategy: string) => (role === 'forced error' ? 'forced error' : `${role}: ${strategy}`)
  const rows = new Map<string, DetectionRow>()
  const row = (role: string, strategy: string) => {
    const label = rowOf(role, strategy)
    let found = rows.get(label)
    if (!found) {
      found = {label, role, strategy, adversarial: strategy !== 'honest', actors: [], plays: 0, caught: 0, notCaught: 0, pending: 0, caughtBy: []}
      rows.set(label, found)
    }
    return found
  }
  // Every actor has a row, even one that never got to play (a cheater that never won a claim).
  for (const actor of actors) {
    if (!['solver', 'verifier', 'whistleblower'].includes(actor.role)) continue
    const entry = row(actor.role, actor.strategy)
    if (!entry.actors.includes(actor.name)) entry.actors.push(actor.name)
  }

  const plays: Play[] = []
  const open = (taskId: string, role?: Play['role'], account?: string) =>
    plays.filter((play) => play.state === 'open' && play.taskId === taskId && (role === undefined || play.role === role) && (account === undefined || play.account === account))
  const start = (role: Play['role'], account: Address | undefined, taskId: string) => {
    if (account === undefined) return
    const actor = byAddress.get(account.toLowerCase())
    plays.push({strategy: actor?.strategy ?? 'honest', role, account: account.toLowerCase(), taskId, state: 'open'})
  }
  const catchPlay = (play: Play, by: string) => {
    if (play.state !== 'open') return
    play.state = 'caught'
    play.by = by
  }
  const settle = (list: Play[]) => {
    for (const play of list) if (play.state === 'open') play.state = 'clean'
  }
  const forced: {caught: boolean; by: string[]}[] = []

  // Events of one transaction are read together: its slashes first, then what they mean for the task.
  for (const group of byTransaction(entries)) {
    const names = new Set(group.map((entry) => entry.eventName))
    const cause = names.has('ClaimTimedOut') ? 'timeout' : names.has('TaskExpired') ? 'expiry' : names.has('ForcedErrorRevealed') ? 'forced error' : 'no winner'
    for (const entry of group.filter((candidate) => candidate.eventName === 'StakeSlashed')) {
      const taskId = taskIdOf(entry)
      const account = addressArg(entry, 'account')?.toLowerCase()
      const winner = addressArg(entry, 'winner')
      if (taskId === undefined || account === undefined) continue
      const by = winner === undefined || winner === zeroAddress ? cause : nameOf(winner)
      for (const play of open(taskId, undefined, account)) catchPlay(play, by)
    }
    for (const entry of group) {
      const taskId = taskIdOf(entry)
      if (taskId === undefined) continue
      switch (entry.eventName) {
        case 'TaskClaimed':
          start('solver', addressArg(entry, 'solver'), taskId)
          break
        case 'VerificationClaimed':
          start('verifier', addressArg(entry, 'verifier'), taskId)
          break
        case 'ChallengeQueued':
          start('whistleblower', addressArg(entry, 'whistleblower'), taskId)
          break
        case 'ForcedErrorRevealed': {
          const catchers = (entry.args.catchers as readonly string[] | undefined) ?? []
          forced.push({caught: catchers.length > 0, by: catchers.map(nameOf)})
          break
        }
        case 'ClaimTimedOut':
          for (const play of open(taskId, 'solver')) catchPlay(play, 'timeout')
          break
        case 'TaskRejected': {
          // The rejection stands: the solver was caught by the verifier that rejected it.
          const verifier = open(taskId, 'verifier')[0]
          for (const play of open(taskId, 'solver')) catchPlay(play, verifier ? nameOf(verifier.account) : 'verifier')
          settle(open(taskId))
          break
        }
        case 'VerificationReopened':
          // A fresh verification of the same proof: the verifier's and the challengers' plays are over.
          settle([...open(taskId, 'verifier'), ...open(taskId, 'whistleblower')])
          break
        case 'TaskSettled':
        case 'TaskReopened':
        case 'TaskExpired':
          settle(open(taskId))
          break
      }
    }
  }

  for (const play of plays) count(row(play.role, play.strategy), play.state, play.by)
  if (forced.length > 0) {
    const entry = row('forced error', 'forced error')
    entry.adversarial = true
    for (const reveal of forced) {
      count(entry, reveal.caught ? 'caught' : 'clean', undefined)
      for (const by of reveal.by) addCatcher(entry, by)
    }
  }
  const order = (entry: DetectionRow) => [entry.role === 'forced error' ? 3 : ['solver', 'verifier', 'whistleblower'].indexOf(entry.role), entry.adversarial ? 0 : 1] as const
  return [...rows.values()].sort((a, b) => order(a)[0] - order(b)[0] || order(a)[1] - order(b)[1] || a.label.localeCompare(b.label))
}

function count(entry: DetectionRow, state: Play['state'], by: string | undefined): void {
  entry.plays++
  if (state === 'open') entry.pending++
  else if (state === 'clean') entry.notCaught++
  else {
    entry.caught++
    if (by !== undefined) addCatcher(entry, by)
  }
}

function addCatcher(entry: DetectionRow, by: string): void {
  const found = entry.caughtBy.find((catcher) => catcher.by === by)
  if (found) found.count++
  else entry.caughtBy.push({by, count: 1})
}

function byTransaction(entries: readonly MarketLogEntry[]): MarketLogEntry[][] {
  const groups: MarketLogEntry[][] = []
  for (const entry of entries) {
    const last = groups.at(-1)
    if (last && last[0]!.transactionHash === entry.transactionHash) last.push(entry)
    else groups.push([entry])
  }
  return groups
}
