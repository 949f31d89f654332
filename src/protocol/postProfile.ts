import type {Address, Hex} from 'viem'

import {thresholdRegistryAbi} from '../chain/generated/index.js'
import {InvalidInputError} from '../errors/base.js'
import {type RuntimeId, runtimeIdString} from '../ml/backend/index.js'
import type {JobSpec} from '../ml/spec/index.js'
import type {ProfileResult} from '../pol/index.js'
import {toFixedPoint} from '../pol/verdictDistance.js'
import {canonicalJsonBytes, sha256Hex} from '../store/index.js'
import type {Connection, SignedConnection} from './connect.js'
import {ensureRegistered} from './ensureRegistered.js'
import {toProtocolError, type TransactionErrorType} from './errors.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'

/** The model class a threshold belongs to: sha256 of the canonical JSON of the job's `model` section. */
export function modelClassOf(spec: Pick<JobSpec, 'model'>): Hex {
  return sha256Hex(canonicalJsonBytes(spec.model))
}

/**
 * The runtime class of a set of runtimes: sha256 of their runtime id strings, deduplicated, sorted and joined
 * by ' + '. Order-free, so a verifier replaying a cpu proof on wasm finds the threshold a profile of wasm and
 * cpu posted, whichever it ran first.
 */
export function runtimeClassOf(runtimes: readonly RuntimeId[]): Hex {
  const ids = [...new Set(runtimes.map(runtimeIdString))].sort()
  return sha256Hex(new TextEncoder().encode(ids.join(' + ')))
}

export type PostedProfile = {modelClass: Hex; runtimeClass: Hex; threshold: bigint; profileHash: Hex; transaction: TransactionResult}

export type PostProfileParameters = {
  /** The job whose model class the record is for. */
  spec: JobSpec
  /** The profile to publish: its runtimes give the runtime class, its l∞ threshold the posted value. */
  profile: ProfileResult
}

export type PostProfileReturnType = PostedProfile

export type PostProfileErrorType = InvalidInputError | TransactionErrorType

/**
 * Publishes a profile: the whole result goes to the blob store (its hash is the on-chain `profileHash`), and
 * the whole-vector l∞ threshold (the metric verdicts post as their distance), 1e18 fixed point, goes to the
 * ThresholdRegistry as the poster's record for the job's model class and the profile's runtime class. The poster
 * must be a verifier. The record is advisory: a job is judged by the profile only when its spec pins the hash.
 *
 * @throws {@link InvalidInputError} when the connection has no ThresholdRegistry or the profile no positive l∞ threshold
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export async function postProfile(connection: SignedConnection, {spec, profile}: PostProfileParameters): Promise<PostProfileReturnType> {
  const registry = requireThresholdRegistry(connection)
  const linf = profile.thresholds.linf
  if (linf === undefined || !(linf > 0)) throw new InvalidInputError('profile.thresholds.linf: expected a positive threshold to post')
  await ensureRegistered(connection, {role: 'verifier'})
  const profileHash = await connection.store.putJson(profile)
  const modelClass = modelClassOf(spec)
  const runtimeClass = runtimeClassOf(profile.runtimes)
  const threshold = toFixedPoint(linf)
  const transaction = await sendContractTransaction(connection, {
    address: registry,
    abi: thresholdRegistryAbi,
    functionName: 'postThreshold',
    args: [modelClass, runtimeClass, threshold, profileHash],
  })
  return {modelClass, runtimeClass, threshold, profileHash, transaction}
}

export type PostedThreshold = {threshold: bigint; profileHash: Hex; postedAt: bigint}

export type GetThresholdParameters = {
  modelClass: Hex
  runtimeClass: Hex
  /** Whose record: each poster has its own, which no one else can overwrite. */
  poster: Address
}

/**
 * `poster`'s latest ThresholdRegistry record for the pair (all zeros when it posted none). A record binds no task:
 * only a job's `verification.profiles` pin does (docs/verification.md, "Thresholds are pinned by the job").
 */
export async function getThreshold(connection: Connection, {modelClass, runtimeClass, poster}: GetThresholdParameters): Promise<PostedThreshold> {
  try {
    const [threshold, profileHash, postedAt] = await connection.publicClient.readContract({
      address: requireThresholdRegistry(connection),
      abi: thresholdRegistryAbi,
      functionName: 'thresholdOf',
      args: [modelClass, runtimeClass, poster],
    })
    return {threshold, profileHash, postedAt: BigInt(postedAt)}
  } catch (error) {
    throw toProtocolError('thresholdOf', error)
  }
}

function requireThresholdRegistry(connection: Connection): Hex {
  const address = connection.contracts.thresholds
  if (!address) throw new InvalidInputError('--threshold-registry: expected the ThresholdRegistry address (none in the devnet file)')
  return address
}
