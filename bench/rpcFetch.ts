// What one JSON-RPC request costs the process that sends it, through viem's http transport with Node's own fetch
// (undici) against the same transport with `nodeFetch` (src/chain/nodeFetch.ts, node:http with a kept-alive
// agent), side by side in one run against one real anvil: `npx tsx bench/rpcFetch.ts`.
//  - each sample is BENCH_REQUESTS (default 2,000) sequential calls of one kind, after 200 to warm up: eth_blockNumber
//    (what a waiting role polls) and five eth_getBlockByNumber started together (one JSON-RPC batch, as a pass's
//    reads go);
//  - samples alternate between the two fetches, BENCH_REPS (default 5) of each; CPU is this process's user + system
//    time (anvil's is the same for both and not counted); medians with the min-max spread.
import {createPublicClient, http, type PublicClient} from 'viem'

import {createAnvil} from '../src/chain/anvil.js'
import {nodeFetch} from '../src/chain/nodeFetch.js'

const requests = Number(process.env.BENCH_REQUESTS ?? 2000)
const reps = Number(process.env.BENCH_REPS ?? 5)

const kinds = {
  blockNumber: (client: PublicClient) => client.getBlockNumber({cacheTime: 0}),
  'batch of 5 blocks': (client: PublicClient) => Promise.all(Array.from({length: 5}, () => client.getBlock({blockTag: 'latest'}))),
} as const

async function sample(client: PublicClient, call: (client: PublicClient) => Promise<unknown>): Promise<number> {
  for (let index = 0; index < 200; index++) await call(client)
  const start = process.cpuUsage()
  for (let index = 0; index < requests; index++) await call(client)
  const {user, system} = process.cpuUsage(start)
  return (user + system) / 1000 / requests
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
const range = (values: number[]) => `${Math.min(...values).toFixed(3)}-${Math.max(...values).toFixed(3)}`

const anvil = createAnvil({})
await anvil.start()
try {
  const clientWith = (fetchFn: typeof fetch | undefined) =>
    createPublicClient({transport: http(anvil.rpcUrl, {retryCount: 0, batch: true, ...(fetchFn ? {fetchFn} : {})})}) as PublicClient
  const clients = {fetch: clientWith(undefined), nodeFetch: clientWith(nodeFetch)}
  console.log(`CPU ms per request (medians of ${reps}, min-max; ${requests} requests a sample)`)
  console.log(`${'request'.padEnd(20)} ${'fetch (undici)'.padEnd(22)} ${'nodeFetch'.padEnd(22)} ratio`)
  for (const [kind, call] of Object.entries(kinds)) {
    const undici: number[] = []
    const node: number[] = []
    for (let rep = 0; rep < reps; rep++) {
      undici.push(await sample(clients.fetch, call))
      node.push(await sample(clients.nodeFetch, call))
    }
    const cell = (values: number[]) => `${median(values).toFixed(3)} (${range(values)})`.padEnd(22)
    console.log(`${kind.padEnd(20)} ${cell(undici)} ${cell(node)} ${(median(node) / median(undici)).toFixed(2)}`)
  }
} finally {
  await anvil.stop()
}
