import {type Abi, type AbiEvent, type Hex, toEventSelector} from 'viem'

const eventsBySelector = new WeakMap<Abi, Map<Hex, AbiEvent[]>>()

/**
 * The events of `abi` that some of `logs` carry (by their first topic): all that viem's `parseEventLogs` needs to
 * decode them. Given a whole ABI, `parseEventLogs` hashes every event signature in it (keccak256 in JavaScript) on
 * every call: with the market's, the registry's, the game's and the book's events that was 12 % of the contract
 * property test's CPU (docs/testing.md, "Where the CPU goes"). Here each ABI's selectors are hashed once.
 */
export function eventsIn<const abi extends Abi>(abi: abi, logs: readonly {topics: readonly Hex[]}[]): abi {
  let bySelector = eventsBySelector.get(abi)
  if (!bySelector) {
    bySelector = new Map()
    for (const item of abi) {
      if (item.type !== 'event') continue
      const selector = toEventSelector(item)
      bySelector.set(selector, [...(bySelector.get(selector) ?? []), item])
    }
    eventsBySelector.set(abi, bySelector)
  }
  const topics = new Set(logs.map((log) => log.topics[0]))
  return [...topics].flatMap((topic) => (topic === undefined ? [] : (bySelector.get(topic) ?? []))) as unknown as abi
}
