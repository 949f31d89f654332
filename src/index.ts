export {BaseError} from './errors/base.js'
