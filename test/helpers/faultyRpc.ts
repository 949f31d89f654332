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
  close: () => Promise<void>
}

/**
 * A real HTTP JSON-RPC proxy in front of a real node that misbehaves the way hosted RPCs do: `decide` picks, per
 * request, whether to forward it or to answer with an error. Batch requests are not used by gensyn's clients.
 */
export async function startFaultyRpc(upstream: string, decide: (request: RpcRequest, count: number) => Fault): Promise<FaultyRpc> {
  const seen: FaultyRpc['seen'] = []
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const rpc = JSON.parse(body) as RpcRequest
      const fault = decide(rpc, seen.length)
      seen.push({method: rpc.method, fault: fault.kind, params: rpc.params})
      if (fault.kind === 'status') {
        response.writeHead(fault.status, {'content-type': 'text/plain'}).end('unavailable')
        return
      }
      if (fault.kind === 'rpc-error') {
        response.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({jsonrpc: '2.0', id: rpc.id, error: {code: fault.code, message: fault.message}}))
        return
      }
      fetch(upstream, {method: 'POST', headers: {'content-type': 'application/json'}, body})
        .then(async (answer) => {
          const text = await answer.text()
          if (fault.kind === 'lost-answer') response.writeHead(fault.status, {'content-type': 'text/plain'}).end('upstream timed out')
          else response.writeHead(answer.status, {'content-type': 'application/json'}).end(text)
        })
        .catch(() => response.writeHead(502).end())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
