export {permutation, prngStream, type PrngStream} from './prngStream.js'
