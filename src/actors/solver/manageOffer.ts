import {getMarketState, getOffer, setOffer, withdrawOffer} from '../../protocol/solverBook.js'
import type {ChainNow} from '../runRoleLoop.js'
import {isLeaving} from './isLeaving.js'
import type {SolverRun} from './types.js'

/**
 * The off-chain strategy of docs/market.md, section 3: list the offer while the price is at least the ask,
 * withdraw it (leave) after a price read below the ask, list it again (join) when the price is back, and
 * withdraw for good when leaving. The claim rules are read from the same book (`memory.book`).
 */
export async function manageOffer(run: SolverRun, now: ChainNow): Promise<void> {
  const {connection, memory, ask, capacity, emit} = run
  // At the pass's head: the book's five reads then share one request, with no head read of their own.
  const [market, offer] = await Promise.all([getMarketState(connection, {blockNumber: now.number}), getOffer(connection, {solver: run.me})])
  memory.book = {price: market.price, listed: offer.listed, active: Number(offer.active)}
  if (isLeaving(run)) {
    if (!memory.announcedLeaving) {
      memory.announcedLeaving = true
      emit({type: 'leaving', afterSeconds: run.options.leaveAfterSeconds ?? 0})
    }
    if (offer.listed) await withdraw('leaving')
    memory.left = true
    return
  }
  if (offer.listed && market.price < ask) await withdraw('price')
  else if (!offer.listed && market.price >= ask) await list()
  // A restart with another ask or capacity updates the listing in place.
  else if (offer.listed && (offer.ask !== ask || Number(offer.capacity) !== capacity)) await setOffer(connection, {ask, capacity})

  async function withdraw(reason: 'price' | 'leaving'): Promise<void> {
    await withdrawOffer(connection)
    memory.book.listed = false
    emit({type: 'offer-withdrawn', ask, price: market.price, reason})
  }
  async function list(): Promise<void> {
    await setOffer(connection, {ask, capacity})
    memory.book.listed = true
    emit({type: 'offer-listed', ask, capacity, price: market.price})
  }
}
