import * as tf from '@tensorflow/tfjs'

import {BackendUnavailableError} from './errors.js'

/** Makes tfjs backend `tfName` the active one; `what` says why it failed, in the error. */
export async function activate(tfName: string, what: string): Promise<void> {
  let ok: boolean
  try {
    ok = await tf.setBackend(tfName)
    await tf.ready()
  } catch (error) {
    throw new BackendUnavailableError(`backend ${tfName} is unavailable: ${what}`, {cause: error})
  }
  if (!ok || tf.getBackend() !== tfName) throw new BackendUnavailableError(`backend ${tfName} is unavailable: ${what}`)
}
