import type {DataId, TensorInfo} from '@tensorflow/tfjs'
import type {BackendWasm} from '@tensorflow/tfjs-backend-wasm'
import {keccak256, type Hex} from 'viem'
import {selectBackend} from '../ml/backend/selectBackend.js'
import {checkpointHash} from '../ml/checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import type {Checkpoint} from '../ml/checkpoint/types.js'
import {withKernelHookSync, type KernelCall} from '../ml/kernels/kernelHook.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {taskStepRange} from '../ml/train/taskStepRange.js'
import {TrainingSession} from '../ml/train/trainingSession.js'
import {operatorCorrupter} from './corruptOperator.js'
import {canonicalTensorBytes, commitmentChain, descriptorAttrs, descriptorHash, finalClaim, graphHash} from './encoding.js'
import {DisputeTraceError, OperatorCorruptionError} from './errors.js'
import type {OperatorCorruption, OperatorDescriptor, StepTrace, TraceElement} from './types.js'

export type TraceStepParameters = {
  spec: JobSpec
  /** The agreed state S_i: the step traced is `state.step` -> `state.step + 1`. */
  state: Checkpoint
  /** TEST-ONLY adversary: corrupt one operator of this step (see corruptOperator.ts); it must apply to `state.step`. */
  corruption?: OperatorCorruption | undefined
}

/** Records the elements of one step as kernels run (see {@link traceStep}). */
class Recorder {
  readonly elements: TraceElement[] = []
  // the elements holding each buffer: Reshape returns its input's buffer under another shape
  private readonly byData = new Map<DataId, {element: number; shape: number[]}[]>()

  private append(descriptor: OperatorDescriptor, info: TensorInfo, backend: BackendWasm): number {
    const values = backend.readSync(info.dataId) as Float32Array | Int32Array | Uint8Array
    // canonical already (NaNs rewritten), so its keccak256 is o_j
    const data = canonicalTensorBytes(values, info.dtype)
    this.elements.push({descriptor, descriptorHash: descriptorHash(descriptor), outputHash: keccak256(data), shape: [...info.shape], dtype: info.dtype, data})
    const element = this.elements.length
    const holders = this.byData.get(info.dataId) ?? []
    holders.push({element, shape: [...info.shape]})
    this.byData.set(info.dataId, holders)
    return element
  }

  /** The element an input tensor is: the latest one on its buffer with its shape, else a new Input element. */
  private elementOf(info: TensorInfo, backend: BackendWasm): number {
    const holders = this.byData.get(info.dataId) ?? []
    const shape = info.shape.join(',')
    const holder = holders.findLast((h) => h.shape.join(',') === shape) ?? holders[holders.length - 1]
    if (holder) return holder.element
    const descriptor: OperatorDescriptor = {kernel: 'Input', inputs: [], inputShapes: [], outputShape: [...info.shape], outputDtype: info.dtype, attrs: '0x'}
    return this.append(descriptor, info, backend)
  }

  record(call: KernelCall<BackendWasm>): void {
    const inputs: TensorInfo[] = Object.values(call.inputs).filter((t): t is TensorInfo => t != null)
    const numbers = inputs.map((t) => this.elementOf(t, call.backend))
    const attrs = call.attrs as Record<string, unknown> | undefined
    for (const [index, out] of call.outputs.entries()) {
      const descriptor: OperatorDescriptor = {
        kernel: call.kernelName,
        inputs: [...numbers],
        inputShapes: inputs.map((t) => [...t.shape]),
        outputShape: [...out.shape],
        outputDtype: out.dtype,
        attrs: descriptorAttrs(call.kernelName, attrs, index),
      }
      this.append(descriptor, out, call.backend)
    }
  }
}

/**
 * The trace fields that follow from its elements, S_i, S_{i+1} and i. `step` is the training step (absolute);
 * `gameStep` is the i the game commits to in c_0, the step counted from the task's start (default `step`: they
 * differ only for a later task of a split job, see {@link traceStep}).
 */
export function assembleTrace(step: number, stateHash: Hex, nextStateHash: Hex, elements: TraceElement[], gameStep = step): StepTrace {
  const commitments = commitmentChain(stateHash, gameStep, elements.map((e) => e.outputHash))
  const finalCommitment = commitments[commitments.length - 1] as Hex
  return {
    step,
    stateHash,
    nextStateHash,
    elements,
    graphHash: graphHash(elements.map((e) => e.descriptorHash)),
    opCount: elements.length,
    commitments,
    finalCommitment,
    finalClaim: finalClaim(finalCommitment, nextStateHash),
  }
}

/**
 * The operator trace of training step `state.step` -> `state.step + 1` (docs/disputes.md, "The operator
 * trace of one step"): the step is run by the same TrainingSession code as training, on wasm, with every
 * wasm kernel wrapped (only for its duration) to record each kernel call's outputs, and the inputs no
 * traced kernel produced (the weights and optimizer state, the batch, scalars) as `Input` elements.
 * The traced step's result is bit for bit the untraced one's: `nextStateHash` is the hash of the state
 * training reaches. Deterministic: tracing twice gives identical traces.
 *
 * A split task's steps run from its range start (taskStepRange): the step is traced with its absolute number (the
 * batch and dropout mask are the job's), and its commitments start from c_0 = keccak256(S_i, i) with i the
 * step counted from the task's start, the number the on-chain game holds (`StepTrace.step` stays absolute).
 *
 * @throws CheckpointMismatchError when `state` is not a state of this job
 * @throws OperatorCorruptionError when `corruption` is malformed or does not apply to this step
 */
export async function traceStep({spec, state, corruption}: TraceStepParameters): Promise<StepTrace & {nextState: Checkpoint}> {
  const range = taskStepRange(spec)
  if (!Number.isInteger(state.step) || state.step < range.start || state.step >= range.end)
    throw new DisputeTraceError(`state.step: expected an integer in [${range.start}, ${range.end - 1}] (a step of the task), got ${state.step}`)
  if (corruption !== undefined && corruption.step !== state.step)
    throw new OperatorCorruptionError(`corruption.step: expected the traced step ${state.step}, got ${corruption.step}`)
  await selectBackend('wasm')
  const stateHash = checkpointHash(encodeCheckpoint(state))
  const recorder = new Recorder()
  const corrupter = corruption === undefined ? undefined : operatorCorrupter(corruption, () => state.step)
  // one thread: every micro-batch's kernels must run here, inside the hook
  const session = new TrainingSession(spec, {threads: 1})
  let next: Checkpoint
  try {
    session.load(state)
    // one step with no boundary callback runs synchronously inside run(): the wrappers are gone before
    // any other code of this process gets to run a kernel
    const ran = withKernelHookSync(
      (call: KernelCall<BackendWasm>) => {
        corrupter?.apply(call)
        recorder.record(call)
      },
      () => session.run(state.step + 1),
      {requireBackend: 'wasm'},
    )
    const finishedInside = session.step === state.step + 1
    await ran
    if (!finishedInside) throw new DisputeTraceError(`traced step ${state.step}: expected it to run while the kernels were wrapped, it finished later`)
    next = (await session.snapshot())
  } finally {
    session.dispose()
  }
  if (corruption !== undefined && !corrupter?.applied)
    throw new OperatorCorruptionError(`corruption: expected ${corruption.kernel} to be called at least ${corruption.occurrence} times during step ${state.step}, it was not`)
  return {...assembleTrace(state.step, stateHash, checkpointHash(encodeCheckpoint(next)), recorder.elements, state.step - range.start), nextState: next}
}
