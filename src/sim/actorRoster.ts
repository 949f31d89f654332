import type {BackendChoice} from '../ml/backend/runtimeId.js'
import {deriveSeed} from '../random/deriveSeed.js'
import type {DevnetAccount} from './devnetAccounts.js'
import type {ResolvedScenario} from './scenario.js'

/** One long-running actor of a devnet: its account, its name in logs and reports, and the CLI it runs. */
export type RosterEntry = {
  account: DevnetAccount
  role: 'solver' | 'verifier' | 'whistleblower'
  /** e.g. `solver-1`, `cheater-1`, `lazy-verifier-1`, `griefer-1`. */
  name: string
  /** `honest`, or the adversary it plays (docs/adversaries.md). */
  strategy: string
  /** Arguments after `gensyn`. */
  args: string[]
  /** Its own backend (else the scenario's). */
  backend?: BackendChoice | undefined
  /** A dropout solver: the devnet SIGKILLs it after the first checkpoint it stores (docs/market.md, section 5). */
  dropout?: boolean
}

/**
 * Names every solver, verifier and whistleblower of a scenario and the command it runs. Honest actors are
 * `<role>-N`; adversaries are named after what they play (`cheater-N` for cheating solvers,
 * `lazy-verifier-N`, `colluding-verifier-N`, `griefer-N`), and a solver the devnet kills is `dropout-N`
 * (strategy `dropout`, so that its timeout penalty is not taken for an honest actor's), numbered within their kind.
 */
export function actorRoster(scenario: ResolvedScenario, accounts: readonly DevnetAccount[]): RosterEntry[] {
  const solvers = accounts.filter((account) => account.role === 'solver')
  const verifiers = accounts.filter((account) => account.role === 'verifier')
  const whistleblowers = accounts.filter((account) => account.role === 'whistleblower')
  const numbers = new Map<string, number>()
  const nameFor = (kind: string) => {
    const next = (numbers.get(kind) ?? 0) + 1
    numbers.set(kind, next)
    return `${kind}-${next}`
  }
  const roster: RosterEntry[] = []
  for (const [position, account] of solvers.entries()) {
    const {strategy, claimDelayMs, disputeStance, ask, capacity, leaveAfterSeconds, dropout, backend} = scenario.actors.solvers[position]!
    const args = ['solve', '--loop', '--strategy', strategy, '--claim-delay', String(claimDelayMs), '--capacity', String(capacity)]
    if (disputeStance) args.push('--dispute-stance', disputeStance)
    if (ask !== undefined) args.push('--ask', ask)
    if (leaveAfterSeconds !== undefined) args.push('--leave-after', String(leaveAfterSeconds))
    if (dropout) roster.push({account, role: 'solver', name: nameFor('dropout'), strategy: strategy === 'honest' ? 'dropout' : `${strategy}+dropout`, args, dropout, backend})
    else roster.push({account, role: 'solver', name: nameFor(strategy === 'honest' ? 'solver' : 'cheater'), strategy, args, backend})
  }
  for (const [position, account] of verifiers.entries()) {
    const {strategy, colludeWith, claimDelayMs, backend, mode} = scenario.actors.verifiers[position]!
    const args = ['verify', '--loop', '--strategy', strategy, '--claim-delay', String(claimDelayMs), '--mode', mode]
    for (const partner of colludeWith) {
      const solver = solvers[partner]
      if (solver) args.push('--collude-with', solver.address)
    }
    roster.push({account, role: 'verifier', name: nameFor(strategy === 'honest' ? 'verifier' : `${strategy}-verifier`), strategy, args, backend})
  }
  for (const [position, account] of whistleblowers.entries()) {
    const {strategy, maxActive, checkCost, mode} = scenario.actors.whistleblowers[position]!
    const args = ['challenge', '--loop', '--strategy', strategy, '--max-active', String(maxActive), '--check-cost', checkCost, '--mode', mode]
    roster.push({account, role: 'whistleblower', name: nameFor(strategy === 'honest' ? 'whistleblower' : strategy), strategy, args})
  }
  // A seeded run hands each actor a seed of its own, from the run's seed and its name (docs/scenarios.md, "Seeds").
  if (scenario.seed === undefined) return roster
  return roster.map((entry) => (entry.role === 'verifier' ? entry : {...entry, args: [...entry.args, '--seed', deriveSeed(scenario.seed!, entry.name)]}))
}
