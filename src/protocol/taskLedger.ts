import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {getLogsPaged} from '../chain/getLogsPaged.js'

/**
 * Where one task's escrow went (docs/market.md, section 2), read from the market's events: every path out of
 * the escrow is in one (`TaskSettled`, `TaskRejected.fromEscrow`, `TaskExpired.refunded`).
 */
export type TaskLedger = {
  taskId: bigint
  /** What the submitter sent with the task (TaskSubmitted.escrow). */
  escrow: bigint
  /** At settlement: the solver's and the verifier's fees after tax, and the tax (into the jackpot). */
  solverPaid: bigint
  verifierPaid: bigint
  tax: bigint
  /** Paid from the escrow to the verifiers of rejected proofs, where the slashed stake fell short of their fee. */
  fromEscrow: bigint
  /** Back to the submitter (at settlement, or the whole rest on expiry). */
  refunded: bigint
  /** The price per work unit fixed at the last claim (0 when never claimed). */
  price: bigint
  /** Settled or expired: nothing is left in escrow. */
  closed: boolean
  /** refunded == escrow - every payment out of it, to the wei (only meaningful once closed). */
  balanced: boolean
}

/** The ledger of every task (or of `taskIds`) with events since `fromBlock`. */
export async function readTaskLedgers(connection: Pick<Connection, 'publicClient' | 'contracts'>, fromBlock: bigint, taskIds?: readonly bigint[]): Promise<Map<bigint, TaskLedger>> {
  const market = {address: connection.contracts.market, abi: taskMarketAbi, fromBlock} as const
  const client = connection.publicClient
  const [submitted, claimed, settled, rejected, expired] = await Promise.all([
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'TaskSubmitted', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'TaskClaimed', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'TaskSettled', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'TaskRejected', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'TaskExpired', ...range})),
  ])
  const wanted = taskIds === undefined ? undefined : new Set(taskIds)
  const ledgers = new Map<bigint, TaskLedger>()
  const ledgerOf = (id: bigint | undefined): TaskLedger | undefined => {
    if (id === undefined || (wanted && !wanted.has(id))) return undefined
    let ledger = ledgers.get(id)
    if (!ledger) {
      ledger = {taskId: id, escrow: 0n, solverPaid: 0n, verifierPaid: 0n, tax: 0n, fromEscrow: 0n, refunded: 0n, price: 0n, closed: false, balanced: false}
      ledgers.set(id, ledger)
    }
    return ledger
  }
  for (const log of submitted) {
    const args = log.args as {id?: bigint; escrow?: bigint}
    const ledger = ledgerOf(args.id)
    if (ledger) ledger.escrow += args.escrow ?? 0n
  }
  for (const log of claimed) {
    const args = log.args as {id?: bigint; price?: bigint}
    const ledger = ledgerOf(args.id)
    if (ledger) ledger.price = args.price ?? 0n
  }
  for (const log of settled) {
    const args = log.args as {id?: bigint; solverPaid?: bigint; verifierPaid?: bigint; refunded?: bigint; tax?: bigint}
    const ledger = ledgerOf(args.id)
    if (!ledger) continue
    ledger.solverPaid += args.solverPaid ?? 0n
    ledger.verifierPaid += args.verifierPaid ?? 0n
    ledger.tax += args.tax ?? 0n
    ledger.refunded += args.refunded ?? 0n
    ledger.closed = true
  }
  for (const log of rejected) {
    const args = log.args as {id?: bigint; fromEscrow?: bigint}
    const ledger = ledgerOf(args.id)
    if (ledger) ledger.fromEscrow += args.fromEscrow ?? 0n
  }
  for (const log of expired) {
    const args = log.args as {id?: bigint; refunded?: bigint}
    const ledger = ledgerOf(args.id)
    if (!ledger) continue
    ledger.refunded += args.refunded ?? 0n
    ledger.closed = true
  }
  for (const ledger of ledgers.values()) {
    ledger.balanced = ledger.refunded === ledger.escrow - ledger.solverPaid - ledger.verifierPaid - ledger.tax - ledger.fromEscrow
  }
  return ledgers
}
