import {BackendUnavailableError} from '../errors.js'

/** What the WebGPU adapter says about itself; part of a webgpu runtime id (hashes are only comparable on one adapter and driver). */
export type AdapterInfo = {
  vendor: string
  architecture: string
  device: string
  /** Driver and its version, as the adapter describes itself (e.g. `llvmpipe: Mesa 25.0.7 (LLVM 15.0.6)`). */
  description: string
}

/** A software adapter (lavapipe/llvmpipe, SwiftShader): a real WebGPU adapter, but it runs on the CPU. */
export function isSoftwareAdapter(adapter: AdapterInfo): boolean {
  return adapter.architecture === 'software' || /llvmpipe|lavapipe|swiftshader/i.test(`${adapter.device} ${adapter.description}`)
}

/** The subset of the WebGPU objects gensyn touches (the `webgpu` package ships full typings we do not depend on). */
type GpuAdapterLike = {
  info: {vendor: string; architecture: string; device: string; description: string}
  requestAdapterInfo?: () => Promise<unknown>
}
type GpuLike = {requestAdapter(options?: {powerPreference?: string}): Promise<GpuAdapterLike | null>}

let loaded: Promise<{gpu: GpuLike; adapter: AdapterInfo}> | undefined

/**
 * Loads Dawn's Node bindings (the npm package `webgpu`, whose prebuilt `dawn.node` ships in the package)
 * and installs `navigator.gpu` for tfjs-backend-webgpu. Once per process.
 *
 * tfjs 4.22 calls `adapter.requestAdapterInfo()`, which current Dawn replaced with `adapter.info`: shimmed.
 *
 * @throws BackendUnavailableError when `webgpu` does not load or no adapter is found
 */
export function loadDawn(): Promise<{gpu: GpuLike; adapter: AdapterInfo}> {
  loaded ??= load()
  return loaded
}

async function load(): Promise<{gpu: GpuLike; adapter: AdapterInfo}> {
  // Dawn (through Mesa) warns when XDG_RUNTIME_DIR is unset; a headless Node process has no session for it.
  process.env.XDG_RUNTIME_DIR ??= '/tmp'
  let dawn: {create(flags: string[]): GpuLike; globals: Record<string, unknown>}
  try {
    dawn = (await import('webgpu')) as unknown as typeof dawn
  } catch (error) {
    throw new BackendUnavailableError(`backend webgpu is unavailable: the webgpu package did not load (${firstLine(error)}); use --backend wasm`, {cause: error})
  }
  Object.assign(globalThis, dawn.globals)
  const gpu = dawn.create([])
  const adapter = await gpu.requestAdapter({powerPreference: 'high-performance'}).catch(() => null)
  // seen on an H100 host: NVIDIA's Vulkan ICD (libGLX_nvidia) does not load without libglvnd, and Dawn then sees no driver
  if (!adapter)
    throw new BackendUnavailableError(
      'backend webgpu is unavailable: no WebGPU adapter (no Vulkan driver found: a GPU needs the Vulkan ICD of its driver and libglvnd, without a GPU install lavapipe: scripts/install-lavapipe.sh); use --backend wasm',
    )
  const adapterClass = (globalThis as {GPUAdapter?: {prototype: GpuAdapterLike}}).GPUAdapter
  if (adapterClass && !adapterClass.prototype.requestAdapterInfo)
    adapterClass.prototype.requestAdapterInfo = async function (this: GpuAdapterLike) {
      return this.info
    }
  Object.defineProperty(globalThis, 'navigator', {value: {...(globalThis as {navigator?: object}).navigator, gpu}, configurable: true, writable: true})
  const {vendor, architecture, device, description} = adapter.info
  return {gpu, adapter: {vendor, architecture, device, description}}
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''
}
