import {type Address, getAddress, type Hex} from 'viem'

import {thresholdRegistryAbi} from '../chain/generated/index.js'
import {InvalidInputError} from '../errors/base.js'
import {type JobSpec, maxPinnedProfiles} from '../ml/spec/index.js'
import type {Connection} from './connect.js'
import {type ChainError, toProtocolError} from './errors.js'
import {modelClassOf} from './postProfile.js'
import {getLogsPaged} from '../chain/getLogsPaged.js'

export type PinPostedProfilesParameters = {
  /** The job, before its spec is hashed: its own `verification.profiles`, if any, are kept first. */
  spec: JobSpec
  /**
   * The posters the submitter trusts, in order of preference: where two posted for the same runtime class, a
   * verifier judges by the first one's (it takes the first pin that matches).
   */
  posters: readonly Address[]
}

export type PinnedProfile = {poster: Address; runtimeClass: Hex; profileHash: Hex; blockNumber: bigint}

export type PinPostedProfilesReturnType = {
  /** The spec with the pins added to `verification.profiles`. */
  spec: JobSpec
  /** What each poster's latest `ThresholdPosted` for the job's model class was, per runtime class. */
  pinned: PinnedProfile[]
}

export type PinPostedProfilesErrorType = InvalidInputError | ChainError

/**
 * Pins, in the job's spec, the latest profile each trusted poster published for the job's model class, one per
 * runtime class, as found in the ThresholdRegistry's `ThresholdPosted` events. The spec hash that goes on chain
 * then commits the task to exactly those profiles: a later post by anyone, the same posters included, does not
 * change what judges it (docs/verification.md, "Thresholds are pinned by the job").
 *
 * @example
 * const {spec: pinnedSpec} = await pinPostedProfiles(connection, {spec, posters: ['0x90F7…b906']})
 * @throws InvalidInputError naming --thresholds-from when there is no ThresholdRegistry, or a poster posted nothing for the model
 */
export async function pinPostedProfiles(connection: Connection, {spec, posters}: PinPostedProfilesParameters): Promise<PinPostedProfilesReturnType> {
  const address = connection.contracts.thresholds
  if (!address) throw new InvalidInputError('--thresholds-from: expected a ThresholdRegistry address in the devnet or network file, found none')
  const modelClass = modelClassOf(spec)
  const trusted = [...new Set(posters.map((poster) => getAddress(poster)))]
  const posted = await postedFor(connection, address, modelClass, trusted)
  const pinned = trusted.flatMap((poster) => latestPerRuntimeClass(poster, posted))
  const silent = trusted.find((poster) => !pinned.some((pin) => pin.poster === poster))
  if (silent) throw new InvalidInputError(`--thresholds-from: expected ${silent} to have posted thresholds for this job's model class ${modelClass}, found none`)
  const profiles = [...new Set([...(spec.verification.profiles ?? []), ...pinned.map((pin) => pin.profileHash)])]
  if (profiles.length > maxPinnedProfiles) throw new InvalidInputError(`--thresholds-from: expected at most ${maxPinnedProfiles} profiles to pin (verification.profiles), got ${profiles.length}`)
  return {spec: {...spec, verification: {...spec.verification, profiles}}, pinned}
}

/** Every `ThresholdPosted` for the model class by these posters since the deployment, in chain order. */
async function postedFor(connection: Connection, address: Address, modelClass: Hex, posters: readonly Address[]): Promise<PinnedProfile[]> {
  try {
    const logs = await getLogsPaged(connection.publicClient, {fromBlock: connection.deployBlock ?? 0n}, (range) => connection.publicClient.getContractEvents({
      address,
      abi: thresholdRegistryAbi,
      eventName: 'ThresholdPosted',
      args: {modelClass, poster: [...posters]},
      strict: true,
      ...range,
    }))
    return logs.map((log) => ({poster: getAddress(log.args.poster), runtimeClass: log.args.runtimeClass, profileHash: log.args.profileHash, blockNumber: log.blockNumber}))
  } catch (error) {
    throw toProtocolError('ThresholdPosted', error)
  }
}

/** `poster`'s last post per runtime class, in the order the classes were first posted. */
function latestPerRuntimeClass(poster: Address, posted: readonly PinnedProfile[]): PinnedProfile[] {
  const latest = new Map<Hex, PinnedProfile>()
  for (const post of posted) if (post.poster === poster) latest.set(post.runtimeClass, post)
  return [...latest.values()]
}
