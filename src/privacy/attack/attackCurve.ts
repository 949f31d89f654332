import type {Checkpoint} from '../../ml/checkpoint/types.js'
import type {Mnist} from '../../ml/data/loadMnist.js'
import type {JobSpec} from '../../ml/spec/schema.js'
import {AttackInputError} from '../errors.js'
import {featureCount} from '../mappingStages.js'
import type {Attacker, AttackerName, KnownPairs} from './attacker.js'
import {meanImage, normalisedMse} from './normalisedMse.js'
import {recognisedRate} from './recognisedRate.js'

/** One point of an attack curve: how well `attacker` reconstructs the targets after `pairs` leaked pairs. */
export type AttackPoint = {
  attacker: AttackerName
  pairs: number
  /** sum ||guess - raw||^2 / sum ||raw - mean training image||^2: 0 exact, 1 no better than the mean image. */
  normalisedMse: number
  /** Fraction of reconstructions a classifier trained on raw digits reads as their label. */
  recognised: number
  /** Seconds to observe the new pairs and reconstruct every target. */
  seconds: number
}

/** One data set as an attacker meets it: the same samples raw (what it wants) and mapped (what it sees). */
export type AttackSplit = {raw: Mnist; mapped: Mnist}

/**
 * Runs one attacker along growing leaks: the first `sizes[0]` training pairs, then the first `sizes[1]` (the
 * attacker keeps what it learned and only observes the new ones), and so on, reconstructing every target after
 * each. `sizes` must be increasing and at most the known pairs' count.
 */
export async function attackCurve({
  attacker,
  known,
  targets,
  sizes,
  classifier,
}: {
  attacker: Attacker
  known: AttackSplit
  targets: AttackSplit
  sizes: readonly number[]
  classifier: {spec: JobSpec; checkpoint: Checkpoint}
}): Promise<AttackPoint[]> {
  const reference = meanImage(known.raw.images, known.raw.count)
  const points: AttackPoint[] = []
  let seen = 0
  for (const pairs of sizes) {
    if (pairs <= seen || pairs > known.raw.count) throw new AttackInputError(`attackCurve: expected increasing sizes up to ${known.raw.count}, got ${sizes.join(', ')}`)
    const started = performance.now()
    const leak: KnownPairs = {
      raw: known.raw.images.subarray(seen * featureCount, pairs * featureCount),
      mapped: known.mapped.images.subarray(seen * featureCount, pairs * featureCount),
      count: pairs - seen,
    }
    attacker.observe(leak)
    seen = pairs
    const guess = await attacker.reconstruct(targets.mapped.images, targets.mapped.count)
    const seconds = (performance.now() - started) / 1000
    points.push({
      attacker: attacker.name,
      pairs,
      normalisedMse: normalisedMse(guess, targets.raw.images, targets.raw.count, reference),
      recognised: recognisedRate(classifier, {images: guess, labels: targets.raw.labels, count: targets.raw.count}),
      seconds,
    })
  }
  return points
}
