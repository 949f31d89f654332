// The market side of docs/market.md in one import: the SolverBook's offers and price signal, and the parameters a
// submission and a solver read. Each action lives in its own file.
export {bookAddress} from './bookAddress.js'
export {getMarketParams, type MarketParams} from './getMarketParams.js'
export {getMarketState, type MarketState} from './getMarketState.js'
export {getOffer, type Offer} from './getOffer.js'
export {pruneOffer} from './pruneOffer.js'
export {defaultMarketParams} from './getProtocolParams.js'
export {getWorkTable} from './getWorkTable.js'
export {setOffer} from './setOffer.js'
export {withdrawOffer} from './withdrawOffer.js'
