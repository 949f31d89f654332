import type {JobSpec} from '../ml/spec/schema.js'

/**
 * Why a job file's `privacy` block changes nothing off chain: its mapping key is derived from the submitter's
 * secret and the hash of the block before submission, so only `gensyn submit` maps the data. A command that
 * trains a job file with no chain (`solve --offline`, `profile --job`) therefore runs on raw MNIST, and says so
 * with this line. Undefined for a job that is not private, or whose spec already names its mapped data set (a
 * submitted task's spec).
 *
 * @param consequence what running on raw data means for this command's result
 */
export function unmappedDataNotice(spec: Pick<JobSpec, 'privacy'>, consequence: string): string | undefined {
  if (spec.privacy === undefined || spec.privacy.data !== undefined) return undefined
  return `privacy: the ${spec.privacy.mapping} mapping is not applied off chain (its key needs your secret and the block hash at submission), so this runs on raw MNIST: ${consequence}`
}
