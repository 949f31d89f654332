import {protocolConfigAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {toProtocolError} from './errors.js'
import {configAddress, type MarketParams} from './getProtocolParams.js'

export type {MarketParams} from './getProtocolParams.js'

/** The market's current parameters (read fresh: the owner may change them between two reads). */
export async function getMarketParams(connection: Pick<Connection, 'publicClient' | 'contracts'>): Promise<MarketParams> {
  try {
    const raw = await connection.publicClient.readContract({address: await configAddress(connection), abi: protocolConfigAbi, functionName: 'marketParams'})
    return {
      initialPrice: raw.initialPrice,
      priceFloor: raw.priceFloor,
      priceCeiling: raw.priceCeiling,
      priceStepBps: Number(raw.priceStepBps),
      targetUtilizationBps: Number(raw.targetUtilizationBps),
      priceEpochBlocks: Number(raw.priceEpochBlocks),
      verifierFeeBps: Number(raw.verifierFeeBps),
      timeoutSlashBps: Number(raw.timeoutSlashBps),
      claimTimeoutSeconds: BigInt(raw.claimTimeoutSeconds),
      trainingBaseSeconds: BigInt(raw.trainingBaseSeconds),
      minWorkUnitsPerSecond: BigInt(raw.minWorkUnitsPerSecond),
      verificationTimeoutSeconds: BigInt(raw.verificationTimeoutSeconds),
    }
  } catch (error) {
    throw toProtocolError('marketParams', error)
  }
}
