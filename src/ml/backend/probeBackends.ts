import {backendNames, type BackendName, runtimeIdString} from './runtimeId.js'
import {selectBackend} from './selectBackend.js'
import {isSoftwareAdapter} from './webgpu/loadDawn.js'

export type BackendProbe =
  | {backend: BackendName; available: true; runtime: string; note?: string}
  | {backend: BackendName; available: false; reason: string}

export type BackendProbes = {backends: BackendProbe[]; auto: BackendName}

/**
 * Tries every backend in this process (each initialises once; webgpu runs its repeatability self-test)
 * and says which `auto` picks. Leaves wasm active.
 */
export async function probeBackends(): Promise<BackendProbes> {
  const backends: BackendProbe[] = []
  for (const backend of backendNames) {
    try {
      const runtime = await selectBackend(backend)
      const note =
        runtime.adapter && isSoftwareAdapter(runtime.adapter)
          ? 'a software adapter (runs on the CPU): real, repeatable, slower than wasm'
          : backend === 'wasm'
            ? 'the default: bit-for-bit repeatable'
            : undefined
      backends.push({backend, available: true, runtime: runtimeIdString(runtime), ...(note ? {note} : {})})
    } catch (error) {
      backends.push({backend, available: false, reason: (error as {shortMessage?: string}).shortMessage ?? String(error)})
    }
  }
  const auto = (await selectBackend('auto')).backend
  await selectBackend('wasm')
  return {backends, auto}
}
