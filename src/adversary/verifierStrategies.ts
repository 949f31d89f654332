import type {Address, Hex} from 'viem'

import {AdversaryInputError} from './errors.js'

/** How a verifier plays (`gensyn verify --strategy NAME`); docs/adversaries.md. */
export const verifierStrategyNames = ['honest', 'lazy', 'colluding'] as const
export type VerifierStrategyName = (typeof verifierStrategyNames)[number]

export type VerifierStrategyDescription = {summary: string; saves: string; caughtBy: string; endsWith: string}

const descriptions: Record<VerifierStrategyName, VerifierStrategyDescription> = {
  honest: {
    summary: 'replays the sampled segments and posts what it found',
    saves: 'nothing',
    caughtBy: 'nothing: its verdicts stand in every dispute',
    endsWith: 'the verifier fee less tax on every task it verifies, and a jackpot share for every forced error it rejects',
  },
  lazy: {
    summary: 'claims the verification and accepts without replaying anything (distance 0, a report saying so)',
    saves: 'every replay: verification compute 0',
    caughtBy: 'a forced error (the solver reveals it, and the verifier that accepted it is slashed) or a whistleblower whose replay proves the accepted proof wrong',
    endsWith: 'its verifier stake slashed on the first forced error it accepts (forcedErrorBps of its tasks), and barred from that task',
  },
  colluding: {
    summary: "accepts its partner solvers' proofs without replaying them and verifies everyone else's honestly",
    saves: "its partners' training (their cheats pass unchecked) and its own replays of their proofs",
    caughtBy: "a whistleblower's challenge of a partner's wrong proof (the dispute slashes the solver and this verifier), or a forced error of a partner",
    endsWith: 'solver and verifier stakes slashed when a whistleblower wins the dispute, both barred from the task, which reopens',
  },
}

export function isVerifierStrategyName(value: unknown): value is VerifierStrategyName {
  return typeof value === 'string' && (verifierStrategyNames as readonly string[]).includes(value)
}

/** @throws AdversaryInputError (exit code 2) naming the valid strategies */
export function parseVerifierStrategyName(value: unknown): VerifierStrategyName {
  if (isVerifierStrategyName(value)) return value
  throw new AdversaryInputError(`verifier strategy: expected one of ${verifierStrategyNames.join(', ')}, got ${JSON.stringify(value)}`)
}

export function describeVerifierStrategy(name: VerifierStrategyName): VerifierStrategyDescription {
  return {...descriptions[parseVerifierStrategyName(name)]}
}

/**
 * Whether a verifier playing `strategy` skips the replay of a proof by `solver`: a lazy verifier never
 * replays; a colluding one waves its partners' proofs through.
 */
export function skipsReplay(strategy: VerifierStrategyName, solver: Address, colludeWith: readonly Address[]): boolean {
  if (strategy === 'lazy') return true
  if (strategy === 'colluding') return colludeWith.some((partner) => partner.toLowerCase() === solver.toLowerCase())
  return false
}

/** The report a verifier that did not replay posts: it says so (its hash is the on-chain reportHash). */
export type UncheckedReport = {
  accepted: true
  replayed: false
  strategy: Exclude<VerifierStrategyName, 'honest'>
  reason: string
  manifestHash: Hex
  proofRoot: Hex
  segments: []
}

export function uncheckedReport(strategy: Exclude<VerifierStrategyName, 'honest'>, manifestHash: Hex, proofRoot: Hex): UncheckedReport {
  const reason = strategy === 'lazy' ? 'lazy verifier: accepted without replaying any segment' : "colluding verifier: accepted its partner's proof without replaying any segment"
  return {accepted: true, replayed: false, strategy, reason, manifestHash, proofRoot, segments: []}
}
