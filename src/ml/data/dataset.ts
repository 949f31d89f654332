import type {DataTask, Samples} from './samples.js'

/** Per-feature (or per-output) affine map applied to the raw values: x' = (x - shift) / divide. */
export type Normalization = {type: 'none' | 'standard' | 'minmax'; scale: number; shift: number[]; divide: number[]}

/**
 * A job's own data set as every role trains on it: both splits after class mapping, scaling and normalisation
 * (the submitter computes them once; the published blob holds the results, so every role reads the same floats).
 */
export type Dataset = {
  task: DataTask
  /** Shape of one sample's features. */
  featureShape: number[]
  /** Classification: the class names in id order (as strings). */
  classNames?: string[] | undefined
  /** How the features were mapped from the file's values (for inference on new data: the model card says). */
  features: Normalization
  /** Regression: how the labels were mapped (predictions map back with x * divide + shift). */
  labels?: Normalization | undefined
  train: Samples
  test: Samples
}
