import {BackendUnavailableError} from '../errors.js'
import type {RuntimeId} from '../runtimeId.js'
import {selectBackend} from '../selectBackend.js'

/**
 * For tests: the webgpu runtime, or a skip with the reason printed when this machine has no WebGPU adapter.
 * With GENSYN_REQUIRE_WEBGPU=1 (CI, which installs lavapipe) a missing adapter fails the test instead.
 */
export async function requireWebgpu(context: {skip(): never}): Promise<RuntimeId> {
  try {
    return await selectBackend('webgpu')
  } catch (error) {
    if (!(error instanceof BackendUnavailableError) || process.env.GENSYN_REQUIRE_WEBGPU === '1') throw error
    console.log(`      skipped: ${error.shortMessage}`)
    return context.skip()
  }
}
