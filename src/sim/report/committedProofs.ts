import {type Address, type Hex, zeroHash} from 'viem'

import {addressArg, type MarketLogEntry, taskIdOf} from './readMarketLog.js'

/** One proof committed to a task, who made it, and every verdict posted on it. */
export type CommittedProof = {
  taskId: string
  /** 1 for the task's first proof, +1 for each one after it. */
  proof: number
  solver: Address | undefined
  /** The job's spec, as the task was submitted (not as the proof claims). */
  specHash: Hex | undefined
  manifestHash: Hex
  verdicts: {verifier: Address | undefined; accepted: boolean; reportHash: Hex}[]
  /** The task was reopened while this was its proof (a rejection, or a whistleblower's won challenge). */
  reopened: boolean
}

/**
 * Every proof committed in the run, in chain order, from the market's events: ProofCommitted, and
 * VerificationReopened with another manifest (a forced error's reveal puts the honest proof it sealed up for
 * verification). The solver is the task's last claimer; a verdict belongs to the proof committed last before it.
 */
export function committedProofs(entries: readonly MarketLogEntry[]): CommittedProof[] {
  const proofs: CommittedProof[] = []
  const latest = new Map<string, CommittedProof>()
  const claimer = new Map<string, Address | undefined>()
  const specs = new Map<string, Hex>()
  for (const entry of entries) {
    const taskId = taskIdOf(entry)
    if (taskId === undefined) continue
    if (entry.eventName === 'TaskSubmitted') specs.set(taskId, entry.args.specHash as Hex)
    if (entry.eventName === 'TaskClaimed') claimer.set(taskId, addressArg(entry, 'solver'))
    // A re-verification of the same proof (an overturned verdict: its VerificationReopened names no manifest) is more
    // verdicts on it, not another proof.
    const sameProof = entry.eventName === 'VerificationReopened' && (entry.args.manifestHash === zeroHash || latest.get(taskId)?.manifestHash === entry.args.manifestHash)
    if ((entry.eventName === 'ProofCommitted' || entry.eventName === 'VerificationReopened') && !sameProof) {
      const number = proofs.filter((proof) => proof.taskId === taskId).length + 1
      const proof = {taskId, proof: number, solver: claimer.get(taskId), specHash: specs.get(taskId), manifestHash: entry.args.manifestHash as Hex, verdicts: [], reopened: false}
      proofs.push(proof)
      latest.set(taskId, proof)
    }
    if (entry.eventName === 'TaskReopened') {
      const proof = latest.get(taskId)
      if (proof) proof.reopened = true
      latest.delete(taskId)
    }
    if (entry.eventName === 'VerdictPosted') {
      latest.get(taskId)?.verdicts.push({verifier: addressArg(entry, 'verifier'), accepted: entry.args.accepted === true, reportHash: entry.args.reportHash as Hex})
    }
  }
  return proofs
}
