export {BackendUnavailableError} from './errors.js'
export {backendNames, runtimeIdString, sameRuntime, type BackendName, type RuntimeId, type WasmVariant} from './runtimeId.js'
export {selectBackend, type SelectBackendOptions} from './selectBackend.js'
