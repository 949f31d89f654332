export {BackendUnavailableError} from './errors.js'
export {backendChoices, backendNames, runtimeIdString, sameRuntime, type BackendChoice, type BackendName, type RuntimeId, type WasmVariant} from './runtimeId.js'
export {selectBackend, type SelectBackendOptions} from './selectBackend.js'
