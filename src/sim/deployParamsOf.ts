import {type Address, parseEther} from 'viem'

import type {DeployParams} from '../chain/deployContracts.js'
import type {Scenario} from './scenario.js'

/**
 * The deployment parameters a scenario's `chain` and `protocol` sections set (ETH in the scenario, wei on
 * chain): what `gensyn devnet up` deploys, and what `gensyn deploy --scenario` deploys to any other chain.
 * `blockTime` and `accountBalance` shape a local anvil only, so they are not here.
 */
export function deployParamsOf(scenario: Pick<Scenario, 'chain' | 'protocol'>, treasury: Address): DeployParams {
  const {protocol, chain} = scenario
  const optional = <T, U>(value: T | undefined, map: (value: T) => U) => (value === undefined ? {} : map(value))
  return {
    treasury,
    unbondingDelay: BigInt(chain.unbondingDelay),
    jackpotSeed: parseEther(protocol.jackpotSeed),
    config: {
      solverStake: parseEther(chain.solverStake),
      verifierStake: parseEther(chain.verifierStake),
      challengeWindowBlocks: BigInt(chain.challengeWindow),
      ...optional(protocol.challengeDeposit, (value) => ({challengeDeposit: parseEther(value)})),
      ...optional(protocol.openWindow, (value) => ({openWindowBlocks: BigInt(value)})),
      ...optional(protocol.revealWindow, (value) => ({revealWindowBlocks: BigInt(value)})),
      ...optional(protocol.roundTimeout, (value) => ({roundTimeoutBlocks: BigInt(value)})),
      ...optional(protocol.committeeTimeout, (value) => ({committeeTimeoutBlocks: BigInt(value)})),
      ...optional(protocol.taxBps, (value) => ({taxBps: value})),
      ...optional(protocol.forcedErrorBps, (value) => ({forcedErrorBps: value})),
      ...optional(protocol.jackpotCap, (value) => ({jackpotCap: parseEther(value)})),
      ...optional(protocol.maxChallengers, (value) => ({maxChallengers: value})),
      ...optional(protocol.committeeSize, (value) => ({committeeSize: value})),
    },
    // docs/market.md, "Parameters": prices in ETH per work unit in the scenario, wei on chain.
    market: {
      ...optional(protocol.initialPrice, (value) => ({initialPrice: parseEther(value)})),
      ...optional(protocol.priceFloor, (value) => ({priceFloor: parseEther(value)})),
      ...optional(protocol.priceCeiling, (value) => ({priceCeiling: parseEther(value)})),
      ...optional(protocol.priceStepBps, (value) => ({priceStepBps: value})),
      ...optional(protocol.targetUtilizationBps, (value) => ({targetUtilizationBps: value})),
      ...optional(protocol.priceEpochBlocks, (value) => ({priceEpochBlocks: value})),
      ...optional(protocol.verifierFeeBps, (value) => ({verifierFeeBps: value})),
      ...optional(protocol.timeoutSlashBps, (value) => ({timeoutSlashBps: value})),
      ...optional(protocol.claimTimeoutSeconds, (value) => ({claimTimeoutSeconds: BigInt(value)})),
      ...optional(protocol.trainingBaseSeconds, (value) => ({trainingBaseSeconds: BigInt(value)})),
      ...optional(protocol.minWorkUnitsPerSecond, (value) => ({minWorkUnitsPerSecond: BigInt(value)})),
      ...optional(protocol.verificationTimeoutSeconds, (value) => ({verificationTimeoutSeconds: BigInt(value)})),
    },
  }
}
