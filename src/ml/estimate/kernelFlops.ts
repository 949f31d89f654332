import type {OpClass} from './workTable.js'

/** FLOPs of one or more operations, by operation class. */
export type FlopCount = Record<OpClass, number>

/** What the counting rules read of a kernel call: its input and output shapes and its attributes. */
export type KernelShapes = {
  inputs: Readonly<Record<string, readonly number[] | null | undefined>>
  outputs: readonly (readonly number[])[]
  attrs?: Readonly<Record<string, unknown>> | undefined
}

export const zeroFlops = (): FlopCount => ({matmul: 0, conv: 0, elementwise: 0, transcendental: 0})

/** Kernels that only move or relabel data (no arithmetic): counted as 0 FLOPs, and known. */
const dataMovement = new Set(['Identity', 'Reshape', 'Cast', 'Transpose', 'Fill', 'ZerosLike', 'OnesLike', 'Slice', 'Concat', 'Pack', 'Tile'])
/** One arithmetic operation per output element. */
const elementwise = new Set([
  'Add', 'Sub', 'Multiply', 'RealDiv', 'FloorDiv', 'Neg', 'Abs', 'Sign', 'Reciprocal', 'Square', 'Relu', 'Relu6', 'LeakyRelu', 'Prelu', 'Step',
  'Maximum', 'Minimum', 'Greater', 'GreaterEqual', 'Less', 'LessEqual', 'Equal', 'NotEqual', 'ClipByValue', 'OneHot', 'Select',
])
/** One operation per input element: a reduction reads every element once. */
const reductions = new Set(['Sum', 'Max', 'Min', 'Mean', 'Prod', 'ArgMax', 'ArgMin', 'All', 'Any'])
/** One transcendental operation per output element. */
const transcendental = new Set(['Exp', 'Expm1', 'Log', 'Log1p', 'Sqrt', 'Rsqrt', 'Tanh', 'Sigmoid', 'Softplus', 'Elu', 'Pow', 'Erf', 'Sin', 'Cos'])

const size = (shape: readonly number[] | null | undefined): number => (shape ?? []).reduce((a, b) => a * b, 1)

/** The extra FLOPs per output element of a fused kernel's bias and activation. */
function fusedEpilogue(count: FlopCount, outputs: number, hasBias: boolean, activation: unknown): FlopCount | undefined {
  if (hasBias) count.elementwise += outputs
  switch (activation ?? 'linear') {
    case 'linear':
      return count
    case 'relu':
    case 'relu6':
    case 'leakyrelu':
    case 'prelu':
      count.elementwise += outputs
      return count
    case 'sigmoid':
    case 'elu':
      count.transcendental += outputs
      return count
    default:
      return undefined
  }
}

function pair(value: unknown): [number, number] | undefined {
  if (typeof value === 'number') return [value, value]
  if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'number') return [value[0], value[1]]
  return undefined
}

/**
 * The FLOPs of one tfjs kernel call by the counting rules of docs/market.md, section 1, or undefined for a
 * kernel the rules do not know. The estimator (which unrolls the graph into these calls) and the
 * instrumented run (which sees the real calls) both count with this function, so an estimate and a
 * measurement differ only where the estimator predicted the wrong operations.
 *
 * - matmul (BatchMatMul, _FusedMatMul): 2 * batch * m * n * k;
 * - conv (Conv2D, FusedConv2D, Conv2DBackpropInput, Conv2DBackpropFilter): 2 * forward output elements *
 *   kh * kw * inChannels (the forward's multiply-adds, which each gradient repeats);
 * - elementwise: 1 per output element (add, sub, mul, div, neg, relu, step, square, comparisons, one-hot,
 *   a fused kernel's bias add and relu), 1 per input element for reductions (sum, max, mean, ...), kh * kw
 *   per window for max/avg pooling and their gradients; softmax: 4 per element (max, sub, sum, div);
 * - transcendental: 1 per output element of exp, log, sqrt, rsqrt, tanh, sigmoid, pow, ...; softmax's exp;
 * - data movement (reshape, identity, cast, transpose, fill, ...): 0.
 */
export function kernelFlops(kernelName: string, {inputs, outputs, attrs}: KernelShapes): FlopCount | undefined {
  const count = zeroFlops()
  const out = outputs.reduce((n, shape) => n + size(shape), 0)
  if (dataMovement.has(kernelName)) return count
  if (elementwise.has(kernelName)) {
    count.elementwise = out
    return count
  }
  if (kernelName === 'SquaredDifference') {
    // (a - b) * (a - b): a subtract and a multiply per output element
    count.elementwise = 2 * out
    return count
  }
  if (reductions.has(kernelName)) {
    count.elementwise = size(inputs.x)
    return count
  }
  if (transcendental.has(kernelName)) {
    count.transcendental = out
    return count
  }
  switch (kernelName) {
    case 'AddN':
      count.elementwise = out * Math.max(Object.values(inputs).length - 1, 0)
      return count
    case 'Softmax':
      count.elementwise = 4 * out
      count.transcendental = out
      return count
    case 'BatchMatMul':
    case '_FusedMatMul': {
      const a = inputs.a
      const shape = outputs[0]
      if (!a || !shape || a.length < 2 || shape.length < 2) return undefined
      const k = attrs?.transposeA === true ? (a[a.length - 2] as number) : (a[a.length - 1] as number)
      count.matmul = 2 * size(shape) * k
      return kernelName === 'BatchMatMul' ? count : fusedEpilogue(count, size(shape), inputs.bias != null, attrs?.activation)
    }
    case 'Conv2D':
    case 'FusedConv2D': {
      const filter = inputs.filter
      if (!filter || filter.length !== 4) return undefined
      count.conv = 2 * out * (filter[0] as number) * (filter[1] as number) * (filter[2] as number)
      return kernelName === 'Conv2D' ? count : fusedEpilogue(count, out, inputs.bias != null, attrs?.activation)
    }
    case 'Conv2DBackpropInput': {
      const filter = inputs.filter
      if (!filter || filter.length !== 4) return undefined
      count.conv = 2 * size(inputs.dy) * (filter[0] as number) * (filter[1] as number) * (filter[2] as number)
      return count
    }
    case 'Conv2DBackpropFilter': {
      const filter = outputs[0]
      if (!filter || filter.length !== 4) return undefined
      count.conv = 2 * size(inputs.dy) * (filter[0] as number) * (filter[1] as number) * (filter[2] as number)
      return count
    }
    case 'MaxPool':
    case 'AvgPool':
    case 'MaxPoolGrad':
    case 'AvgPoolGrad': {
      const window = pair(attrs?.filterSize)
      if (!window) return undefined
      const windows = kernelName.endsWith('Grad') ? size(inputs.dy) : out
      count.elementwise = windows * window[0] * window[1]
      return count
    }
    default:
      return undefined
  }
}

/** Adds `b` into `a` (in place) and returns `a`. */
export function addFlops(a: FlopCount, b: FlopCount, times = 1): FlopCount {
  a.matmul += b.matmul * times
  a.conv += b.conv * times
  a.elementwise += b.elementwise * times
  a.transcendental += b.transcendental * times
  return a
}

export const totalFlops = (count: FlopCount): number => count.matmul + count.conv + count.elementwise + count.transcendental
