import type {Address} from 'viem'

import {protocolConfigAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {toProtocolError} from './errors.js'
import {linkedAddress} from './linkedAddress.js'

/** `ProtocolConfig.Params` (docs/disputes.md, "ProtocolConfig"): wei amounts, block counts, basis points. */
export type ProtocolParams = {
  solverStake: bigint
  verifierStake: bigint
  challengeDeposit: bigint
  challengeWindowBlocks: bigint
  openWindowBlocks: bigint
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

// One copy of the market defaults and type: deployContracts sets them, this module's readers return them.
export {defaultMarketParams, type MarketParams} from '../chain/deployContracts.js'

type Reader = Pick<Connection, 'publicClient' | 'contracts'>

/** The ProtocolConfig the market reads (see {@link linkedAddress}). */
export function configAddress(connection: Reader): Promise<Address> {
  return linkedAddress(connection, 'config')
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
      openWindowBlocks: BigInt(raw.openWindowBlocks),
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
