import type {Address} from 'viem'

import {protocolConfigAbi, taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {toProtocolError} from './errors.js'

/** `ProtocolConfig.Params` (docs/disputes.md, "ProtocolConfig"): wei amounts, block counts, basis points. */
export type ProtocolParams = {
  solverStake: bigint
  verifierStake: bigint
  challengeDeposit: bigint
  challengeWindowBlocks: bigint
  revealWindowBlocks: bigint
  roundTimeoutBlocks: bigint
  committeeTimeoutBlocks: bigint
  taxBps: number
  slashWinnerBps: number
  slashTreasuryBps: number
  slashBurnBps: number
  forcedErrorBps: number
  jackpotCap: bigint
  maxChallengers: number
  committeeSize: number
  maxOnchainElements: number
}

/**
 * `ProtocolConfig.MarketParams` (docs/market.md, "Parameters"): prices in wei per work unit, basis points,
 * blocks per controller epoch, timeouts in seconds.
 */
export type MarketParams = {
  initialPrice: bigint
  priceFloor: bigint
  priceCeiling: bigint
  priceStepBps: number
  targetUtilizationBps: number
  priceEpochBlocks: number
  verifierFeeBps: number
  timeoutSlashBps: number
  claimTimeoutSeconds: bigint
  trainingBaseSeconds: bigint
  minWorkUnitsPerSecond: bigint
  verificationTimeoutSeconds: bigint
}

/**
 * The market defaults ProtocolConfig's constructor sets (docs/market.md, "Parameters"); a test checks them against
 * `ProtocolConfig.defaultMarketParams()`. Use them only where no chain can be read (an offline estimate).
 */
export const defaultMarketParams: Readonly<MarketParams> = Object.freeze({
  initialPrice: 10_000_000_000_000n,
  priceFloor: 100_000_000_000n,
  priceCeiling: 10_000_000_000_000_000n,
  priceStepBps: 1250,
  targetUtilizationBps: 8000,
  priceEpochBlocks: 5,
  verifierFeeBps: 2000,
  timeoutSlashBps: 2500,
  claimTimeoutSeconds: 3600n,
  trainingBaseSeconds: 120n,
  minWorkUnitsPerSecond: 50n,
  verificationTimeoutSeconds: 600n,
})

type Reader = Pick<Connection, 'publicClient' | 'contracts'>

/** The ProtocolConfig the market reads: the connection's when it names one, else `market.config()`. */
export async function configAddress(connection: Reader): Promise<Address> {
  if (connection.contracts.config) return connection.contracts.config
  try {
    return await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'config'})
  } catch (error) {
    throw toProtocolError('config', error)
  }
}

/** The protocol's current parameters (read fresh: the owner may change them between two reads). */
export async function getProtocolParams(connection: Reader): Promise<ProtocolParams> {
  try {
    const raw = await connection.publicClient.readContract({address: await configAddress(connection), abi: protocolConfigAbi, functionName: 'params'})
    return {
      solverStake: raw.solverStake,
      verifierStake: raw.verifierStake,
      challengeDeposit: raw.challengeDeposit,
      challengeWindowBlocks: BigInt(raw.challengeWindowBlocks),
      revealWindowBlocks: BigInt(raw.revealWindowBlocks),
      roundTimeoutBlocks: BigInt(raw.roundTimeoutBlocks),
      committeeTimeoutBlocks: BigInt(raw.committeeTimeoutBlocks),
      taxBps: Number(raw.taxBps),
      slashWinnerBps: Number(raw.slashWinnerBps),
      slashTreasuryBps: Number(raw.slashTreasuryBps),
      slashBurnBps: Number(raw.slashBurnBps),
      forcedErrorBps: Number(raw.forcedErrorBps),
      jackpotCap: raw.jackpotCap,
      maxChallengers: Number(raw.maxChallengers),
      committeeSize: Number(raw.committeeSize),
      maxOnchainElements: Number(raw.maxOnchainElements),
    }
  } catch (error) {
    throw toProtocolError('params', error)
  }
}
