import type {CrashReport, DevnetReport, PartialRun} from '../buildReport.js'
import type {Dropout} from '../devnetEvents.js'
import type {ResolvedScenario} from '../scenario.js'
import type {ActorHandle} from '../spawnActor.js'
import {describeExpectations} from './describeExpectations.js'

export type ReportWithoutChainOptions = {
  scenario: ResolvedScenario
  reason: string
  actors: readonly Pick<ActorHandle, 'name' | 'role' | 'exit'>[]
  dropouts: readonly Dropout[]
  crashes: readonly CrashReport[]
  seenTasks: NonNullable<PartialRun['seenTasks']>
}

/**
 * The report of a run whose chain is gone (anvil killed or crashed): nothing can be read back, so it holds
 * what the devnet itself saw (the actors, their crashes, each task's last event) and says it is partial.
 * Its money figures are zero and marked unchecked, never claimed conserved.
 */
export function reportWithoutChain(options: ReportWithoutChainOptions): DevnetReport {
  const zero = '0'
  return {
    scenario: options.scenario.name,
    seed: options.scenario.seed,
    ok: false,
    tasks: [],
    accounts: [],
    disputes: [],
    slashes: [],
    jackpot: {before: zero, after: zero, funded: zero, taxIn: zero, paidOut: zero, payouts: []},
    market: {series: [], offers: [], timeouts: [], price: {start: zero, end: zero, min: zero, max: zero}, shock: null},
    dropouts: [...options.dropouts],
    conservation: {ok: false, totalBefore: zero, totalAfter: zero, gasFees: zero, burned: zero, registryBalanceMatchesStakes: false, marketBalanceMatchesEscrow: false},
    actors: options.actors.map((actor) => ({name: actor.name, role: actor.role, exitCode: actor.exit?.exitCode ?? null, signal: actor.exit?.signal ?? null})),
    failures: [options.reason],
    expectations: describeExpectations(options.scenario),
    crashes: [...options.crashes],
    partial: {reason: options.reason, chainRead: false, seenTasks: [...options.seenTasks]},
  }
}
