import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

type RpcRequest = {jsonrpc: '2.0'; id: number; method: string; params?: unknown[]}

/** What the proxy does with one JSON-RPC request: forward it, or answer it itself. */
export type Fault =
  | {kind: 'forward'}
  /** An HTTP error status with no JSON body (a load balancer's 503, a 429). */
  | {kind: 'status'; status: number}
  /** A JSON-RPC error answer. */
  | {kind: 'rpc-error'; code: number; message: string}
  /** Forwarded and done by the node, but its answer lost on the way back: the client gets this status instead. */
  | {kind: 'lost-answer'; status: number}

export type FaultyRpc = {
  url: string
  /** Every request seen, in order, with what was done with it. */
  seen: {method: string; fault: Fault['kind']; params?: unknown[]}[]
  /** The JSON-RPC requests each HTTP request carried, in order (more than one: a batch). */
  posts: number[]
  close: () => Promise<void>
}

/**
 * A real HTTP JSON-RPC proxy in front of a real node that misbehaves the way hosted RPCs do: `decide` picks, per
 * request, whether to forward it or to answer with an error. A JSON-RPC batch (gensyn's clients send one for the
 * reads of one step) is decided request by request; an HTTP-level fault (a status, a lost answer) in it fails the
 * whole batch, as it would on a real load balancer.
 */
export async function startFaultyRpc(upstream: string, decide: (request: RpcRequest, count: number) => Fault): Promise<FaultyRpc> {
  const seen: FaultyRpc['seen'] = []
  const posts: number[] = []
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RpcRequest | RpcRequest[]
      answer(parsed).then(
        ({status, body}) => response.writeHead(status, {'content-type': status === 200 ? 'application/json' : 'text/plain'}).end(body),
        () => response.writeHead(502).end(),
      )
    })
  })

  async function answer(parsed: RpcRequest | RpcRequest[]): Promise<{status: number; body: string}> {
    const requests = Array.isArray(parsed) ? parsed : [parsed]
    posts.push(requests.length)
    const faults = requests.map((rpc) => {
      const fault = decide(rpc, seen.length)
      seen.push({method: rpc.method, fault: fault.kind, params: rpc.params})
      return fault
    })
    const refused = faults.find((fault) => fault.kind === 'status')
    if (refused?.kind === 'status') return {status: refused.status, body: 'unavailable'}
    const forwarded = requests.filter((_, index) => faults[index]!.kind !== 'rpc-error')
    const upstreamAnswers = forwarded.length === 0 ? [] : await forward(forwarded)
    const lost = faults.find((fault) => fault.kind === 'lost-answer')
    if (lost?.kind === 'lost-answer') return {status: lost.status, body: 'upstream timed out'}
    const answers = requests.map((rpc, index) => {
      const fault = faults[index]!
      if (fault.kind === 'rpc-error') return {jsonrpc: '2.0', id: rpc.id, error: {code: fault.code, message: fault.message}}
      return upstreamAnswers.find((candidate) => candidate.id === rpc.id)
    })
    return {status: 200, body: JSON.stringify(Array.isArray(parsed) ? answers : answers[0])}
  }

  async function forward(requests: RpcRequest[]): Promise<{id: number}[]> {
    const reply = await fetch(upstream, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(requests)})
    return (await reply.json()) as {id: number}[]
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    posts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
