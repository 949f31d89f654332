import type {Hex} from 'viem'

import {BaseError} from '../errors/base.js'
import type {RuntimeId} from '../ml/backend/index.js'
import type {JobSpec} from '../ml/spec/index.js'
import {parseThresholds, type ProfileResult, type Thresholds} from '../pol/index.js'
import type {Connection} from './connect.js'
import {runtimeClassOf} from './postProfile.js'

export type PinnedThresholdsParameters = {
  /** The task's job spec: its `verification.profiles` are the only profiles that may judge it. */
  spec: Pick<JobSpec, 'verification'>
  /** The runtimes a replay compares, e.g. the proof's and the verifier's own (order-free, as runtime classes are). */
  runtimes: readonly RuntimeId[]
}

export type PinnedThresholdsReturnType = {
  /** The first pinned profile, in the spec's order, whose runtime class is that of `runtimes`; undefined when none is. */
  pinned: {profileHash: Hex; thresholds: Thresholds} | undefined
  /** Pins passed over before it because the store gave no usable profile for them (missing, corrupt, malformed). */
  unreadable: {profileHash: Hex; reason: string}[]
}

/** It does not throw: a pin that cannot be read is reported in `unreadable`, and the job is judged as if it were absent. */
export type PinnedThresholdsErrorType = never

/**
 * The thresholds a tolerance-mode verifier judges a task by: those of the profile the job pinned for the runtime
 * class of `runtimes`. Only the spec's pins count, never a ThresholdRegistry entry: the spec hash the submitter
 * put on chain commits to them, while anyone with the free verifier role can post an entry (docs/verification.md,
 * "Thresholds are pinned by the job"). Each pin is read from the blob store, which checks it against its hash.
 *
 * @example
 * const {pinned} = await pinnedThresholds(connection, {spec, runtimes: [manifest.runtime, ownRuntime]})
 * if (!pinned) // no thresholds bind this job on this pair of runtimes: leave it to other verifiers
 */
export async function pinnedThresholds(connection: Pick<Connection, 'store'>, {spec, runtimes}: PinnedThresholdsParameters): Promise<PinnedThresholdsReturnType> {
  const wanted = runtimeClassOf(runtimes)
  const unreadable: PinnedThresholdsReturnType['unreadable'] = []
  for (const profileHash of (spec.verification.profiles ?? []) as Hex[]) {
    let profile: Pick<ProfileResult, 'runtimes' | 'thresholds'>
    try {
      profile = await readProfile(connection, profileHash)
    } catch (error) {
      unreadable.push({profileHash, reason: error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)})
      continue
    }
    if (runtimeClassOf(profile.runtimes) === wanted) return {pinned: {profileHash, thresholds: profile.thresholds}, unreadable}
  }
  return {pinned: undefined, unreadable}
}

/** A published profile's runtimes and thresholds, checked for shape: a pin may name any blob the submitter chose. */
async function readProfile(connection: Pick<Connection, 'store'>, profileHash: Hex): Promise<Pick<ProfileResult, 'runtimes' | 'thresholds'>> {
  const profile = await connection.store.getJson<Partial<ProfileResult> | null>(profileHash)
  const runtimes: unknown[] = Array.isArray(profile?.runtimes) ? profile.runtimes : []
  if (runtimes.length === 0 || !runtimes.every(isRuntimeId)) throw new BaseError('not a profile: expected runtimes, a list of runtime ids')
  return {runtimes, thresholds: parseThresholds(profile?.thresholds)}
}

function isRuntimeId(value: unknown): value is RuntimeId {
  return typeof value === 'object' && value !== null && typeof (value as {backend?: unknown}).backend === 'string'
}
