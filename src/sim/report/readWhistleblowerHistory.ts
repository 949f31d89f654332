import {roleRegistryAbi} from '../../chain/generated/index.js'
import {getLogsPaged} from '../../chain/getLogsPaged.js'
import type {Reader} from './readMarketLog.js'
import type {WhistleblowerPoint} from './types.js'

/**
 * Every change of the active whistleblowers (RoleRegistry's WhistleblowingSet: who joined or left, and the
 * count after it), in chain order, with chain-clock seconds: the report's whistleblowers-over-time series.
 */
export async function readWhistleblowerHistory(
  connection: Reader,
  fromBlock: bigint,
  toBlock: bigint,
  secondsAt: (block: bigint) => Promise<number>,
  nameOf: (address: string) => string,
): Promise<WhistleblowerPoint[]> {
  const logs = await getLogsPaged(connection.publicClient, {fromBlock, toBlock}, (range) =>
    connection.publicClient.getContractEvents({address: connection.contracts.registry, abi: roleRegistryAbi, eventName: 'WhistleblowingSet', ...range}),
  )
  const points: WhistleblowerPoint[] = []
  for (const log of logs) {
    const {account, active, count} = log.args
    if (log.blockNumber === null || account === undefined || active === undefined || count === undefined) continue
    points.push({seconds: await secondsAt(log.blockNumber), block: log.blockNumber.toString(), account: nameOf(account), joined: active, active: Number(count)})
  }
  return points
}
