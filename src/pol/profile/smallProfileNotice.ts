import type {ProfileSample} from './profileJob.js'

/** The fewest honest replays the false-rejection target is measured over (docs/verification.md). */
export const recommendedReplays = 200

/**
 * A one-line notice when thresholds come from fewer than {@link recommendedReplays} honest replays that
 * differ from their reference (replays on another runtime): an honest divergence rarer than one in the
 * profile's size is never seen, so the thresholds may reject it. On an NVIDIA H200, webgpu → wasm,
 * mnist-cnn's thresholds from 40 replays rejected 3 of 148 held-out honest segments (docs/verification.md,
 * "Cross-runtime verification: webgpu on NVIDIA GPUs"). Undefined when every replay was exact or there are enough.
 */
export function smallProfileNotice(samples: readonly Pick<ProfileSample, 'exact'>[]): string | undefined {
  if (samples.length >= recommendedReplays || samples.every((s) => s.exact)) return undefined
  return `thresholds from ${samples.length} honest replays, fewer than ${recommendedReplays}: a rarer honest divergence can fall outside them (docs/verification.md); add --seeds`
}
