import type {Address, Hex} from 'viem'

import {type Task, type TaskStatus, verdictOf} from '../../../protocol/types.js'
import type {ResolvedScenario} from '../../scenario.js'
import type {TaskLedger} from '../../../protocol/taskLedger.js'
import type {PhaseEvent, TaskEvents} from '../readPhaseEvents.js'
import type {ReportContext} from '../reportContext.js'

export type TaskReport = {
  id: string
  status: TaskStatus
  verdict: 'accepted' | 'rejected' | 'none'
  testAccuracy: number | null
  submitter: Address
  solver: Address
  verifier: Address
  escrow: string
  /** The split job's task before it ('0' for none), its work units and steps: the range and what was trained. */
  parentId: string
  workUnits: string
  maxSteps: string
  totalSteps: string
  /** Where the escrow went, to the wei (docs/market.md, section 2): `balanced` is refunded == escrow - payments. */
  ledger: {price: string; solverPaid: string; verifierPaid: string; tax: string; fromEscrow: string; refunded: string; balanced: boolean}
  /** Claims that timed out (the solver vanished; the task went back to the pool). */
  timeouts: number
  /** Every claim of the task: the first, one after each rejection and one after each timeout. */
  claims: number
  /** How many times the task was taken: 1 + one per rejected proof (a rejection reopens the task). */
  attempts: number
  /** Every rejected proof: the cheater, what its stake lost, and where that went. */
  rejections: {solver: Address; slashed: string; verifierPaid: string; treasuryPaid: string}[]
  /** Gas of the transactions of each phase, over every attempt. */
  gasUsed: {submission: string; claim: string; commit: string; verification: string; settlement: string; total: string}
  /** Chain-clock seconds spent in each phase of the last attempt (block timestamps, so whole seconds). */
  seconds: {queued: number; training: number; verification: number; challenge: number; total: number}
  proofRoot: Hex
  /** The last checkpoint of its committed proof (a split job's model is its last task's), when the store has it. */
  finalCheckpoint: Hex | null
  /** Whether the task came from one of the scenario's jobs (only those are held to its expectations). */
  fromScenario: boolean
  expectations: {ok: boolean; failures: string[]}
}

/** Every task on the market: its phases, money and gas; the scenario's own tasks are held to its expectations. */
export function tasksSection(ctx: ReportContext): TaskReport[] {
  return ctx.tasks.map((task) => {
    const id = task.id.toString()
    const judged = ctx.scenarioTaskIds.has(id) ? {scenario: ctx.scenario, delivers: ctx.deliveringTaskIds.has(id)} : undefined
    const timeouts = ctx.market.timeouts.filter((timeout) => timeout.taskId === id).length
    return taskReport(task, ctx.events.get(task.id) ?? new Map(), ctx.accuracyByTask.get(id) ?? null, judged, ctx.ledgers.get(task.id), timeouts, ctx.finalCheckpoints.get(id) ?? null)
  })
}

function taskReport(
  task: Task,
  events: TaskEvents,
  testAccuracy: number | null,
  judged: {scenario: ResolvedScenario; delivers: boolean} | undefined,
  ledger: TaskLedger | undefined,
  timeouts: number,
  finalCheckpoint: Hex | null,
): TaskReport {
  const scenario = judged?.scenario
  const gas = (...names: PhaseEvent[]) => names.flatMap((name) => events.get(name) ?? []).reduce((sum, entry) => sum + entry.gasUsed, 0n)
  const at = (name: PhaseEvent) => events.get(name)?.at(-1)?.timestamp
  const span = (from: PhaseEvent, to: PhaseEvent) => {
    const start = at(from)
    const end = at(to)
    return start === undefined || end === undefined ? 0 : Number(end - start)
  }
  const end: PhaseEvent = events.has('TaskSettled') ? 'TaskSettled' : 'TaskExpired'
  const gasUsed = {
    submission: gas('TaskSubmitted'),
    claim: gas('TaskClaimed'),
    commit: gas('ProofCommitted'),
    verification: gas('VerificationClaimed', 'VerdictPosted'),
    settlement: gas('TaskSettled', 'TaskRejected', 'TaskExpired'),
  }
  const verdict = verdictOf(task)
  const failures: string[] = []
  if (scenario) {
    // A run stopped by durationSeconds may end with tasks still open; those are held to nothing but conservation.
    const judgedNow = scenario.expect.allSettled || task.status === 'Settled'
    if (task.status !== 'Settled' && scenario.expect.allSettled) failures.push(`status ${task.status}, expected Settled`)
    if (judgedNow && verdict !== scenario.expect.verdict) failures.push(`verdict ${verdict}, expected ${scenario.expect.verdict}`)
    const minimum = scenario.expect.minTestAccuracy
    if (minimum !== undefined && judged?.delivers && scenario.expect.verdict === 'accepted' && (testAccuracy === null || testAccuracy < minimum)) {
      failures.push(`test accuracy ${testAccuracy ?? 'unknown'}, expected at least ${minimum}`)
    }
  }
  return {
    id: task.id.toString(),
    status: task.status,
    verdict,
    testAccuracy,
    submitter: task.submitter,
    solver: task.solver,
    verifier: task.verifier,
    escrow: (ledger?.escrow ?? task.escrow).toString(),
    parentId: task.parentId.toString(),
    workUnits: task.workUnits.toString(),
    maxSteps: task.maxSteps.toString(),
    totalSteps: task.totalSteps.toString(),
    ledger: {
      price: (ledger?.price ?? task.price).toString(),
      solverPaid: String(ledger?.solverPaid ?? 0n),
      verifierPaid: String(ledger?.verifierPaid ?? 0n),
      tax: String(ledger?.tax ?? 0n),
      fromEscrow: String(ledger?.fromEscrow ?? 0n),
      refunded: String(ledger?.refunded ?? 0n),
      balanced: ledger?.balanced ?? false,
    },
    timeouts,
    claims: events.get('TaskClaimed')?.length ?? 0,
    gasUsed: {...mapValues(gasUsed, String), total: Object.values(gasUsed).reduce((a, b) => a + b, 0n).toString()},
    seconds: {
      queued: span(events.has('TaskReopened') ? 'TaskReopened' : 'TaskSubmitted', 'TaskClaimed'),
      training: span('TaskClaimed', 'ProofCommitted'),
      verification: span('ProofCommitted', 'VerdictPosted'),
      challenge: span('VerdictPosted', 'TaskSettled'),
      total: span('TaskSubmitted', end),
    },
    attempts: task.attempts + 1,
    rejections: (events.get('TaskRejected') ?? []).map(({args}) => ({
      solver: args.solver as Address,
      slashed: String(args.slashed),
      verifierPaid: String(args.verifierPaid),
      treasuryPaid: String(args.treasuryPaid),
    })),
    proofRoot: task.proofRoot,
    finalCheckpoint,
    fromScenario: scenario !== undefined,
    expectations: {ok: failures.length === 0, failures},
  }
}

function mapValues<K extends string, V, W>(record: Record<K, V>, map: (value: V) => W): Record<K, W> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value as V)])) as Record<K, W>
}
