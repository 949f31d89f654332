import {defaultWorkTable} from '../../ml/estimate/workTable.js'
import {modelWeights} from '../../ml/model/initialWeights.js'
import {optimizerStateType, type JobSpec} from '../../ml/spec/schema.js'

/**
 * The most bytes readBundle reads of each file (docs/proof-format.md, "Hostile input"), so a huge or endless
 * file cannot exhaust memory. proof.json: a header plus 512 bytes for each checkpoint the largest job the
 * protocol allows can have (maxSteps + 2, at checkpointInterval 1). spec.json: 1 MiB, hundreds of times a
 * real spec. A data set: 1 GiB.
 */
export const bundleFileLimits = Object.freeze({
  proofJson: 64 * 1024 + (defaultWorkTable.maxSteps + 2) * 512,
  specJson: 1024 * 1024,
  data: 1024 * 1024 * 1024,
})

const pad4 = (n: number) => (4 - (n % 4)) % 4

/**
 * The size in bytes of every checkpoint of `spec` (docs/checkpoint-format.md §4): the header, then for each
 * weight and each optimizer slot (m, v) its name, rank, shape and float32 values. A checkpoint file of another
 * size cannot decode as this job's, so no more than this is ever read. Call it on a spec within the work limits.
 */
export function checkpointBytes(spec: JobSpec): number {
  const slots = {sgd: [''], momentum: ['', 'm/'], adam: ['', 'm/', 'v/']}[optimizerStateType(spec)]
  let total = 36
  for (const weight of modelWeights(spec.model)) {
    const elements = weight.shape.reduce((a, b) => a * b, 1)
    for (const prefix of slots) {
      const name = new TextEncoder().encode(prefix + weight.name).length
      total += 4 + name + pad4(name) + 4 + 4 * weight.shape.length + 4 * elements
    }
  }
  return total
}
