import {z} from 'zod'

// The model part of the job spec (src/ml/spec/schema.ts holds the rest). Its own file because analyzeModel
// needs these types and the job schema needs analyzeModel: with both in schema.ts they formed an import cycle.

/** Layer types a job may use, in the order error messages list them. */
export const layerTypes = [
  'dense',
  'conv2d',
  'maxPooling2d',
  'flatten',
  'dropout',
  'avgPooling2d',
  'globalAveragePooling',
  'embedding',
  'positionalEmbedding',
  'layerNormalization',
  'multiHeadAttention',
  'residual',
] as const
/** Activations a dense or conv2d layer may use (`linear` = none). */
export const activations = ['relu', 'sigmoid', 'tanh', 'softmax', 'gelu', 'linear'] as const

export const positiveInt = z.number().int().positive()
const size2d = z.union([positiveInt, z.tuple([positiveInt, positiveInt])])
const activation = z.enum(activations)

const denseLayer = z
  .strictObject({
    type: z.literal('dense'),
    units: positiveInt.describe('number of output units'),
    activation: activation.default('linear').describe('activation applied to the output'),
  })
  .describe('fully connected layer: y = activation(x W + b); needs a flat (rank 1) input')

const conv2dLayer = z
  .strictObject({
    type: z.literal('conv2d'),
    filters: positiveInt.describe('number of output channels'),
    kernelSize: size2d.describe('kernel height and width (one number = square)'),
    strides: size2d.default(1).describe('stride (one number = same in both directions)'),
    padding: z.enum(['valid', 'same']).default('valid'),
    activation: activation.default('linear'),
  })
  .describe('2D convolution over a [height, width, channels] input (NHWC)')

const maxPooling2dLayer = z
  .strictObject({
    type: z.literal('maxPooling2d'),
    poolSize: size2d.default(2).describe('pooling window height and width'),
    strides: size2d.optional().describe('stride; defaults to poolSize'),
    padding: z.enum(['valid', 'same']).default('valid'),
  })
  .describe('2D max pooling over a [height, width, channels] input')

const avgPooling2dLayer = z
  .strictObject({
    type: z.literal('avgPooling2d'),
    poolSize: size2d.default(2).describe('pooling window height and width'),
    strides: size2d.optional().describe('stride; defaults to poolSize'),
    padding: z.enum(['valid', 'same']).default('valid'),
  })
  .describe('2D average pooling over a [height, width, channels] input')
const globalAveragePoolingLayer = z
  .strictObject({type: z.literal('globalAveragePooling')})
  .describe('the mean over every position: [height, width, channels] to [channels], or [sequence, features] to [features]')
const flattenLayer = z.strictObject({type: z.literal('flatten')}).describe('reshape to rank 1')

const dropoutLayer = z
  .strictObject({
    type: z.literal('dropout'),
    rate: z.number().min(0).lt(1).describe('fraction of units zeroed during training, 0 <= rate < 1'),
  })
  .describe('seeded dropout (see docs/job-spec.md): a fresh mask per training step, identity at inference')

const embeddingLayer = z
  .strictObject({
    type: z.literal('embedding'),
    vocabulary: positiveInt.describe('number of token ids (the data\'s vocabulary size)'),
    units: positiveInt.describe('width of each token\'s vector'),
  })
  .describe('token ids [sequence] to vectors [sequence, units] (a learned table, looked up with gather)')
const positionalEmbeddingLayer = z
  .strictObject({type: z.literal('positionalEmbedding')})
  .describe('adds a learned vector per position to a [sequence, units] input')
const layerNormalizationLayer = z
  .strictObject({
    type: z.literal('layerNormalization'),
    epsilon: z.number().positive().default(1e-5).describe('added to the variance'),
  })
  .describe('normalises over the last axis, then scales by gamma and shifts by beta (learned)')
const multiHeadAttentionLayer = z
  .strictObject({
    type: z.literal('multiHeadAttention'),
    heads: positiveInt.describe('number of heads; the input width must divide by it'),
    causal: z.boolean().default(true).describe('each position attends only to itself and earlier ones'),
  })
  .describe('self-attention over a [sequence, units] input: query, key, value and output projections, softmax(q k^T / sqrt(d)) v per head')
const baseLayers = [denseLayer, conv2dLayer, maxPooling2dLayer, avgPooling2dLayer, globalAveragePoolingLayer, flattenLayer, dropoutLayer, embeddingLayer, positionalEmbeddingLayer, layerNormalizationLayer, multiHeadAttentionLayer] as const
type BaseLayerOutput = z.output<(typeof baseLayers)[number]>
type BaseLayerInput = z.input<(typeof baseLayers)[number]>
/** A layer as validated (defaults filled in); a residual block holds layers. */
export type LayerOutput = BaseLayerOutput | {type: 'residual'; layers: LayerOutput[]}
type LayerInput = BaseLayerInput | {type: 'residual'; layers: LayerInput[]}
const residualLayer = z
  .strictObject({
    type: z.literal('residual'),
    layers: z
      .array(z.lazy((): z.ZodType<LayerOutput, LayerInput> => layerSchema))
      .min(1)
      .describe('the block: its output is added to its input (same shape)'),
  })
  .describe('a residual block, x + layers(x): with layerNormalization first, a pre-norm transformer block')
export const layerSchema: z.ZodDiscriminatedUnion<[...typeof baseLayers, typeof residualLayer], 'type'> = z.discriminatedUnion('type', [
  denseLayer,
  conv2dLayer,
  maxPooling2dLayer,
  avgPooling2dLayer,
  globalAveragePoolingLayer,
  flattenLayer,
  dropoutLayer,
  embeddingLayer,
  positionalEmbeddingLayer,
  layerNormalizationLayer,
  multiHeadAttentionLayer,
  residualLayer,
])

export const modelSchema = z.strictObject({
  inputShape: z
    .array(positiveInt)
    .min(1)
    .describe('shape of one sample without the batch axis: [784] (flat MNIST) or [28, 28, 1] (images)'),
  layers: z.array(layerSchema).min(1).describe('the layers, applied in order (a sequential model)'),
  initialWeights: z
    .strictObject({
      source: z.string().min(1).describe('a safetensors file (what gensyn models get writes): a path relative to the job file, http(s), store:0x<sha256> or npm:<package>/<file>'),
      data: z.string().regex(/^0x[0-9a-f]{64}$/, {error: 'expected 0x followed by 64 lowercase hex digits'}).optional().describe('hash of the published weights in the blob store; set by gensyn submit, absent in a job file'),
    })
    .optional()
    .describe('fine-tuning: start from these weights instead of the seeded initialiser (names and shapes as the model\'s checkpoints)'),
})

export type LayerSpec = z.output<typeof layerSchema>
export type ModelSpec = z.output<typeof modelSchema>
