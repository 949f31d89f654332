/**
 * TEST-ONLY ADVERSARY. Flips one bit of one operator's output during one training step, so a solver that
 * trains with it commits a proof whose segment diverges from the honest replay at exactly that operator
 * (docs/disputes.md, "The operator trace of one step"). Nothing in the protocol's honest paths imports
 * this module; tests and the simulated cheating players do.
 */
import type {BackendWasm} from '@tensorflow/tfjs-backend-wasm'

import {selectBackend} from '../ml/backend/selectBackend.js'
import {withKernelHook, type KernelCall} from '../ml/kernels/kernelHook.js'
import {taskStepRange} from '../ml/train/taskStepRange.js'
import {trainJob, type TrainJobParameters, type TrainResult} from '../ml/train/trainJob.js'
import {OperatorCorruptionError} from './errors.js'
import type {OperatorCorruption, StepTrace} from './types.js'

function checkCorruption(corruption: OperatorCorruption): void {
  const {step, kernel, occurrence, element, output = 0} = corruption
  const bad = (field: string, expected: string, value: unknown) =>
    new OperatorCorruptionError(`corruption.${field}: expected ${expected}, got ${JSON.stringify(value)}`)
  if (!Number.isInteger(step) || step < 0) throw bad('step', 'an integer >= 0', step)
  if (typeof kernel !== 'string' || kernel.length === 0) throw bad('kernel', 'a kernel name', kernel)
  if (!Number.isInteger(occurrence) || occurrence < 1) throw bad('occurrence', 'an integer >= 1', occurrence)
  if (!Number.isInteger(element) || element < 0) throw bad('element', 'an integer >= 0', element)
  if (!Number.isInteger(output) || output < 0) throw bad('output', 'an integer >= 0', output)
}

/** The corruption's state while kernels are wrapped: counts the kernel's calls during its step and flips the bit on the chosen one. */
export type OperatorCorrupter = {
  /** Called for every top-level kernel call, before anything reads its outputs. True when this call was corrupted. */
  apply(call: KernelCall<BackendWasm>): boolean
  readonly applied: boolean
}

/** TEST-ONLY: a corrupter for `corruption`; `currentStep()` names the training step the kernels being called belong to. */
export function operatorCorrupter(corruption: OperatorCorruption, currentStep: () => number): OperatorCorrupter {
  checkCorruption(corruption)
  const output = corruption.output ?? 0
  let calls = 0
  let applied = false
  return {
    get applied() {
      return applied
    },
    apply(call) {
      if (applied || call.kernelName !== corruption.kernel || currentStep() !== corruption.step) return false
      calls++
      if (calls !== corruption.occurrence) return false
      const what = `corruption of ${corruption.kernel} call ${corruption.occurrence} at step ${corruption.step}`
      const info = call.outputs[output]
      if (info === undefined) throw new OperatorCorruptionError(`${what}: expected output ${output} to exist, the kernel has ${call.outputs.length}`)
      if (info.dtype !== 'float32') throw new OperatorCorruptionError(`${what}: expected a float32 output, got ${info.dtype}`)
      // an output sharing its buffer with an input (Reshape) would corrupt the input too: not one operator's fault
      for (const [name, input] of Object.entries(call.inputs))
        if (input?.dataId === info.dataId) throw new OperatorCorruptionError(`${what}: expected an output with its own buffer, got one shared with input ${name}`)
      const values = call.backend.typedArrayFromHeap(info)
      if (corruption.element >= values.length)
        throw new OperatorCorruptionError(`${what}: expected element < ${values.length} (the output's size), got ${corruption.element}`)
      const bits = new Uint32Array(values.buffer, values.byteOffset, values.length)
      bits[corruption.element] = (bits[corruption.element] as number) ^ 1
      applied = true
      return true
    },
  }
}

/**
 * TEST-ONLY: runs `fn` (training on wasm) with the operator corruption armed: the `occurrence`-th call of
 * `kernel` while `currentStep()` returns `corruption.step` gets the lowest bit of output element `element`
 * flipped. Switches to the wasm backend first.
 *
 * @throws OperatorCorruptionError when the corruption is malformed, cannot apply to the call it names, or
 *   `fn` finished without making that call
 */
export async function withOperatorCorruption<T>(corruption: OperatorCorruption, currentStep: () => number, fn: () => Promise<T>): Promise<T> {
  const corrupter = operatorCorrupter(corruption, currentStep)
  await selectBackend('wasm')
  const value = await withKernelHook((call: KernelCall<BackendWasm>) => void corrupter.apply(call), fn, {requireBackend: 'wasm'})
  if (!corrupter.applied)
    throw new OperatorCorruptionError(
      `corruption: expected ${corruption.kernel} to be called at least ${corruption.occurrence} times during step ${corruption.step}, it was not`,
    )
  return value
}

/**
 * TEST-ONLY ADVERSARY: {@link trainJob} on wasm with one operator corrupted (see {@link withOperatorCorruption}).
 * Every checkpoint up to `corruption.step` is honest; every later one descends from the flipped bit, so
 * the segment holding step `corruption.step` is the first one an honest replay rejects (unless later
 * rounding absorbs the one-ulp change, e.g. in an operator only the loss value reads: then nothing differs).
 */
export async function trainJobWithOperatorCorruption(
  parameters: Omit<TrainJobParameters, 'backend' | 'resume'> & {corruption: OperatorCorruption},
): Promise<TrainResult> {
  const {corruption, onStep, ...rest} = parameters
  // the step that runs first: a split task starts at its range's first step
  let current = taskStepRange(parameters.spec).start
  return withOperatorCorruption(corruption, () => current, () =>
    trainJob({
      ...rest,
      backend: 'wasm',
      // the corruption hooks this thread's kernels: worker threads would compute the micro-batches unhooked
      threads: 1,
      // onStep reports the step count reached: it is also the index of the step that runs next
      onStep: (step, loss) => {
        current = step
        onStep?.(step, loss)
      },
    }),
  )
}

/** The element number (from 1) of the n-th output element of `kernel` in a trace. */
export function kernelElement(trace: StepTrace, kernel: string, n = 1): number {
  let seen = 0
  for (const [index, element] of trace.elements.entries()) if (element.descriptor.kernel === kernel && ++seen === n) return index + 1
  throw new OperatorCorruptionError(`${kernel} #${n} is not in the trace of step ${trace.step}`)
}

/**
 * The corruption of the n-th call of `kernel` in the traced step that reaches the next state: it flips the
 * largest output value, where a one-ulp change is the least likely to be absorbed by a later relu or rounding.
 * Returns it with the element number it corrupts.
 */
export function propagatingCorruption(trace: StepTrace, kernel: string, n = 1): {corruption: OperatorCorruption; element: number} {
  const element = kernelElement(trace, kernel, n)
  const values = new Float32Array(trace.elements[element - 1]!.data.slice().buffer)
  let largest = 0
  for (let index = 1; index < values.length; index++) if (values[index]! > values[largest]!) largest = index
  return {corruption: {step: trace.step, kernel, occurrence: n, element: largest}, element}
}

