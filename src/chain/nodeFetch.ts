import http from 'node:http'
import https from 'node:https'

/** One pool of kept-alive sockets per protocol for the process: a role's requests reuse a connection. */
const agents = {'http:': new http.Agent({keepAlive: true}), 'https:': new https.Agent({keepAlive: true})}

/**
 * The `fetch` viem's http transport is given (its `fetchFn`): a JSON-RPC request is one POST and one text answer, and
 * over `node:http` it costs the sender 0.58-0.68 of the CPU it costs through Node's own `fetch` (undici, with WHATWG
 * streams in between; bench/rpcFetch.ts, docs/benchmarks.md "RPC requests over node:http"). It answers what viem
 * reads of a response (`ok`, `status`, `statusText`, `headers.get`, `text()`; `body` null) and is aborted by viem's
 * timeout signal.
 */
export function nodeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url)
  const request = url.protocol === 'https:' ? https.request : http.request
  const agent = agents[url.protocol as keyof typeof agents]
  if (!agent) return Promise.reject(new TypeError(`nodeFetch: expected an http(s) URL, got ${url.protocol}`))
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {method: init.method ?? 'GET', headers: init.headers as http.OutgoingHttpHeaders, agent, signal: init.signal ?? undefined}, (incoming) => {
      const chunks: Buffer[] = []
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
      incoming.on('error', reject)
      incoming.on('end', () => resolve(answer(incoming, Buffer.concat(chunks).toString('utf8'))))
    })
    outgoing.on('error', reject)
    outgoing.end(typeof init.body === 'string' ? init.body : undefined)
  })
}

function answer(incoming: http.IncomingMessage, text: string): Response {
  const status = incoming.statusCode ?? 0
  const headers = {get: (name: string) => headerValue(incoming.headers[name.toLowerCase()])}
  return {ok: status >= 200 && status < 300, status, statusText: incoming.statusMessage ?? '', headers, body: null, text: async () => text} as unknown as Response
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null
  return Array.isArray(value) ? value.join(', ') : value
}
