import assert from 'node:assert/strict'

import {encodeAbiParameters, encodeEventTopics, type Hex, parseEventLogs} from 'viem'

import {eventsIn} from './eventsIn.js'
import {roleRegistryAbi, taskMarketAbi} from './generated/index.js'

const abi = [...taskMarketAbi, ...roleRegistryAbi]
const address = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
const word = (value: bigint) => encodeAbiParameters([{type: 'uint256'}], [value])

/** A log as a node returns it, encoded from the ABI's own event. */
function log(eventName: 'TaskState' | 'Unlocked', args: Record<string, unknown>, data: Hex) {
  return {address, topics: encodeEventTopics({abi, eventName, args} as never) as [Hex, ...Hex[]], data, blockNumber: 1n, blockHash: `0x${'11'.repeat(32)}`, logIndex: 0, transactionHash: `0x${'22'.repeat(32)}`, transactionIndex: 0, removed: false} as const
}

describe('eventsIn', function () {
  const state = log('TaskState', {id: 7n}, encodeAbiParameters([{type: 'bytes32[15]'}], [Array.from({length: 15}, (_, index) => word(BigInt(index))) as never]))
  const unlocked = log('Unlocked', {account: address}, encodeAbiParameters([{type: 'uint256'}], [5n]))
  const foreign = {...unlocked, topics: [`0x${'ab'.repeat(32)}`] as [Hex]}

  it('keeps only the events the logs carry, once each', function () {
    const events = eventsIn(abi, [state, unlocked, state, foreign])
    assert.deepEqual(events.map((event) => (event as {name: string}).name).sort(), ['TaskState', 'Unlocked'])
    assert.deepEqual(eventsIn(abi, [foreign]), [])
  })

  it('decodes the same logs to the same events as the whole ABI does', function () {
    const logs = [state, unlocked, foreign]
    assert.deepEqual(parseEventLogs({abi: eventsIn(abi, logs), logs}), parseEventLogs({abi, logs}))
    assert.equal(parseEventLogs({abi: eventsIn(abi, logs), logs}).length, 2)
  })
})
