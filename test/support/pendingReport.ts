/**
 * A mocha root hook (loaded by .mocharc.json in every worker) that makes a test timeout explain itself. It
 * records this worker's JSON-RPC traffic (every `fetch` whose body is a JSON-RPC call: viem's http transport,
 * the store client's are ignored) and the order of the files the worker ran. When a test fails by mocha's
 * timeout it prints, on stderr: the files this worker ran before, the requests still in flight, the last
 * requests answered, and what each chain it talked to says now (head, automine, pool). That trace is how the
 * suite's intermittent hang was found (docs/design.md, "Test suite").
 */
import type {Context} from 'mocha'

type Call = {id: number; url: string; method: string; startedAt: number; ms?: number; outcome?: string}

const KEEP = 30
const inFlight = new Map<number, Call>()
const answered: Call[] = []
const files: string[] = []
let next = 0

const realFetch = globalThis.fetch
globalThis.fetch = async function recordingFetch(input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) {
  const method = rpcMethod(init?.body)
  if (!method) return realFetch(input, init)
  const call: Call = {id: ++next, url: new URL(input instanceof Request ? input.url : String(input)).href, method, startedAt: Date.now()}
  inFlight.set(call.id, call)
  try {
    const response = await realFetch(input, init)
    call.outcome = `HTTP ${response.status}`
    return response
  } catch (error) {
    call.outcome = error instanceof Error ? error.message : String(error)
    throw error
  } finally {
    call.ms = Date.now() - call.startedAt
    inFlight.delete(call.id)
    answered.push(call)
    if (answered.length > KEEP) answered.shift()
  }
}

/** The JSON-RPC method(s) of a request body, or undefined when it is not JSON-RPC. */
function rpcMethod(body: unknown): string | undefined {
  if (typeof body !== 'string' || !body.includes('"jsonrpc"')) return undefined
  try {
    const parsed = JSON.parse(body) as {method?: string} | {method?: string}[]
    return Array.isArray(parsed) ? parsed.map((call) => call.method).join(',') : parsed.method
  } catch {
    return undefined
  }
}

/** Asks a chain directly (not through the recorder) for the state a stuck wait depends on. */
async function chainState(url: string): Promise<string> {
  const ask = async (method: string) => {
    const response = await realFetch(url, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({jsonrpc: '2.0', id: 1, method, params: []}),
      signal: AbortSignal.timeout(2_000),
    })
    return JSON.stringify(((await response.json()) as {result?: unknown; error?: unknown}).result ?? 'error')
  }
  try {
    const [head, automine, pool] = await Promise.all([ask('eth_blockNumber'), ask('anvil_getAutomine'), ask('txpool_status')])
    return `head ${head}, automine ${automine}, pool ${pool}`
  } catch (error) {
    return `no answer (${error instanceof Error ? error.message : String(error)})`
  }
}

function line(call: Call, now: number): string {
  const time = call.ms === undefined ? `pending for ${now - call.startedAt} ms` : `${call.ms} ms, ${call.outcome}`
  return `    #${call.id} ${call.method} -> ${call.url} (${time})`
}

export const mochaHooks = {
  beforeEach(this: Context) {
    const file = this.currentTest?.file
    if (file && files.at(-1) !== file) files.push(file)
  },
  async afterEach(this: Context) {
    const test = this.currentTest
    if (test?.state !== 'failed' || !/^Timeout of \d+ms exceeded/.test(test.err?.message ?? '')) return
    const now = Date.now()
    const urls = [...new Set([...inFlight.values(), ...answered].map((call) => call.url))]
    const lines = [
      `\n[pending report] "${test.fullTitle()}" timed out in mocha worker ${process.pid}`,
      `  files this worker ran, in order:\n${files.map((file) => `    ${file}`).join('\n')}`,
      `  JSON-RPC calls in flight:\n${[...inFlight.values()].map((call) => line(call, now)).join('\n') || '    none'}`,
      `  last ${answered.length} answered:\n${answered.map((call) => line(call, now)).join('\n') || '    none'}`,
      `  chains now:\n${(await Promise.all(urls.map(async (url) => `    ${url}: ${await chainState(url)}`))).join('\n') || '    none'}`,
    ]
    process.stderr.write(`${lines.join('\n')}\n`)
  },
}
