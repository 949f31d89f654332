import assert from 'node:assert/strict'
import {once} from 'node:events'
import http from 'node:http'
import type {AddressInfo} from 'node:net'

import {createPublicClient, http as httpTransport, HttpRequestError} from 'viem'

import {nodeFetch} from './nodeFetch.js'
import {isTransientRpcError} from './retryingTransport.js'

type Seen = {method: string; contentType: string | undefined; body: string}

/** A real HTTP server on a free loopback port that answers each request with `reply` and records what came. */
async function serve(reply: (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void) {
  const seen: Seen[] = []
  let connections = 0
  const server = http.createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
    request.on('end', () => {
      seen.push({method: request.method!, contentType: request.headers['content-type'], body})
      reply(request, response, body)
    })
  })
  server.on('connection', () => connections++)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`
  return {url, seen, connections: () => connections, close: () => new Promise((resolve) => server.close(resolve)).then(() => server.closeAllConnections())}
}

describe('nodeFetch (viem fetchFn over node:http, against a real local server)', function () {
  it('sends the method, headers and body given, and answers status, headers and text as fetch would', async () => {
    const server = await serve((_, response, body) => {
      response.writeHead(503, 'Busy', {'Content-Type': 'application/json', 'X-Echo-Length': String(body.length)})
      response.end('{"error":"busy"}')
    })
    try {
      const response = await nodeFetch(server.url, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"id":1}'})
      assert.deepEqual(server.seen, [{method: 'POST', contentType: 'application/json', body: '{"id":1}'}])
      assert.equal(response.ok, false)
      assert.equal(response.status, 503)
      assert.equal(response.statusText, 'Busy')
      assert.equal(response.headers.get('content-type'), 'application/json')
      assert.equal(response.headers.get('X-ECHO-LENGTH'), '8')
      assert.equal(response.headers.get('x-absent'), null)
      assert.equal(response.body, null)
      assert.equal(await response.text(), '{"error":"busy"}')
    } finally {
      await server.close()
    }
  })

  it('carries viem JSON-RPC calls, batched or not, over one kept-alive connection', async () => {
    const server = await serve((_, response, body) => {
      const calls = JSON.parse(body) as {id: number}[] | {id: number}
      const answer = (call: {id: number}) => ({jsonrpc: '2.0', id: call.id, result: '0x2a'})
      response.writeHead(200, {'Content-Type': 'application/json'})
      response.end(JSON.stringify(Array.isArray(calls) ? calls.map(answer) : answer(calls)))
    })
    try {
      const single = createPublicClient({transport: httpTransport(server.url, {fetchFn: nodeFetch, retryCount: 0})})
      const batched = createPublicClient({transport: httpTransport(server.url, {fetchFn: nodeFetch, retryCount: 0, batch: true})})
      for (let index = 0; index < 5; index++) assert.equal(await single.getBlockNumber({cacheTime: 0}), 42n)
      assert.deepEqual(await Promise.all([batched.getBlockNumber({cacheTime: 0}), batched.getChainId()]), [42n, 42])
      assert.equal(server.seen.length, 6)
      assert.equal(server.connections(), 1)
    } finally {
      await server.close()
    }
  })

  it('stops at its signal: an aborted request rejects, as viem\'s timeout needs', async () => {
    const server = await serve(() => {}) // never answers
    try {
      const controller = new AbortController()
      const pending = nodeFetch(server.url, {method: 'POST', body: '{}', signal: controller.signal})
      setTimeout(() => controller.abort(), 50)
      await assert.rejects(pending, {name: 'AbortError'})
      const client = createPublicClient({transport: httpTransport(server.url, {fetchFn: nodeFetch, retryCount: 0, timeout: 100})})
      await assert.rejects(client.getBlockNumber({cacheTime: 0}), (error: Error) => error.name === 'TimeoutError' && isTransientRpcError(error))
    } finally {
      await server.close()
    }
  })

  it('rejects a refused connection, which viem reports as an HTTP error without a status: transient, so retried', async () => {
    const server = await serve(() => {})
    const url = server.url
    await server.close()
    await assert.rejects(nodeFetch(url, {method: 'POST', body: '{}'}), {code: 'ECONNREFUSED'})
    const client = createPublicClient({transport: httpTransport(url, {fetchFn: nodeFetch, retryCount: 0})})
    await assert.rejects(client.getBlockNumber({cacheTime: 0}), (error: Error) => error instanceof HttpRequestError && error.status === undefined && isTransientRpcError(error))
  })

  it('refuses a URL that is not http(s), naming what it expected', async () => {
    await assert.rejects(nodeFetch('ws://127.0.0.1:8545'), /expected an http\(s\) URL, got ws:/)
  })
})
