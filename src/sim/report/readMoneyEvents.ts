import type {Address} from 'viem'

import {taskMarketAbi} from '../../chain/generated/index.js'
import {getLogsPaged} from '../../chain/getLogsPaged.js'
import type {Connection} from '../../protocol/connect.js'

export type MoneyEvents = {
  slashes: {taskId: string; account: Address; winner: Address | null; amount: bigint; toWinner: bigint; toTreasury: bigint; burned: bigint}[]
  payouts: {taskId: string; catcher: Address; amount: bigint}[]
  fees: {to: Address; amount: bigint}[]
  funded: bigint
  taxIn: bigint
}

const zeroAddress = '0x0000000000000000000000000000000000000000'

/** Slashes, jackpot payouts, fees and taxes, from the market's events. */
export async function readMoneyEvents(connection: Connection, fromBlock: bigint): Promise<MoneyEvents> {
  const market = {address: connection.contracts.market, abi: taskMarketAbi, fromBlock} as const
  const client = connection.publicClient
  const [slashed, revealed, funded, settled, claimed, verifying] = await Promise.all([
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'StakeSlashed', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'ForcedErrorRevealed', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'JackpotFunded', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'TaskSettled', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'TaskClaimed', ...range})),
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({...market, eventName: 'VerificationClaimed', ...range})),
  ])
  // TaskSettled names no payee: the solver and verifier holding the task when it settled are the last to claim it.
  const lastBefore = (logs: readonly {args: {id?: bigint}; blockNumber: bigint | null; logIndex: number | null}[], id: bigint, block: bigint) =>
    logs.filter((log) => log.args.id === id && (log.blockNumber ?? 0n) <= block).at(-1)
  const fees: MoneyEvents['fees'] = []
  let taxIn = 0n
  for (const log of settled) {
    const {id, solverPaid, verifierPaid, tax} = log.args
    if (id === undefined || log.blockNumber === null) continue
    taxIn += tax ?? 0n
    const solver = (lastBefore(claimed, id, log.blockNumber)?.args as {solver?: Address} | undefined)?.solver
    const verifier = (lastBefore(verifying, id, log.blockNumber)?.args as {verifier?: Address} | undefined)?.verifier
    if (solver) fees.push({to: solver, amount: solverPaid ?? 0n})
    if (verifier) fees.push({to: verifier, amount: verifierPaid ?? 0n})
  }
  return {
    slashes: slashed.map(({args}) => ({
      taskId: String(args.id),
      account: args.account!,
      winner: args.winner === undefined || args.winner === zeroAddress ? null : args.winner,
      amount: args.amount ?? 0n,
      toWinner: args.toWinner ?? 0n,
      toTreasury: args.toTreasury ?? 0n,
      burned: args.burned ?? 0n,
    })),
    payouts: revealed.flatMap(({args}) => (args.catchers ?? []).map((catcher, index) => ({taskId: String(args.id), catcher, amount: args.paidEach?.[index] ?? 0n}))),
    fees,
    funded: funded.reduce((sum, log) => sum + (log.args.amount ?? 0n), 0n),
    taxIn,
  }
}
