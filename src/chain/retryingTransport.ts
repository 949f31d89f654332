import pRetry from 'p-retry'
import {type Hex, HttpRequestError, http, type HttpTransport, keccak256, TimeoutError} from 'viem'

import {RpcGaveUpError} from './errors.js'
import {nodeFetch} from './nodeFetch.js'
import {saysRangeTooLarge} from './getLogsPaged.js'

export type RetryPolicy = {
  /** Retries after the first try. Default 6: with the default backoff an RPC outage of 16-24 s is ridden out (waits are randomised by x1-2). */
  retries?: number | undefined
  /** First wait in ms; each later one doubles, up to 8 s. Default 250. */
  minTimeoutMs?: number | undefined
  /**
   * Send the requests started together as one JSON-RPC batch (default false). Each request then waits for a timer
   * tick (about 1 ms) before it goes: a saving for reads started in parallel, a cost for calls made one at a time.
   */
  batch?: boolean | undefined
}

/** JSON-RPC error codes that say "not now" rather than "never": rate limits and node-side hiccups. */
const transientCodes = new Set([-1, -32005, -32603, -32007, 429])
/** HTTP statuses worth another try (viem's own list). */
const transientStatuses = new Set([403, 408, 413, 429, 500, 502, 503, 504])

/**
 * Whether a failed JSON-RPC request may succeed if tried again: the endpoint did not answer (no status: refused,
 * reset, DNS), timed out, throttled or failed on its side. A revert, a bad parameter or a "nonce too low" is an
 * answer, never retried.
 */
export function isTransientRpcError(error: unknown): boolean {
  if (error instanceof TimeoutError) return true
  // A log query too wide for the provider fails the same way every time: getLogsPaged narrows it instead.
  if (saysRangeTooLarge(error)) return false
  if (error instanceof HttpRequestError) return error.status === undefined || transientStatuses.has(error.status)
  const code = (error as {code?: unknown} | undefined)?.code
  return typeof code === 'number' && transientCodes.has(code)
}

/**
 * viem's http transport with the retries done by p-retry: exponential backoff (250 ms doubling, capped at 8 s) on
 * transient errors only, then one {@link RpcGaveUpError} naming the URL and the method. viem's own retry (three
 * tries within about a second) is turned off, as it would give up on a node restart.
 */
export function retryingTransport(rpcUrl: string, policy: RetryPolicy = {}): HttpTransport {
  // A transient failure of a batch fails, and retries, each request in it.
  const base = http(rpcUrl, {retryCount: 0, batch: policy.batch ?? false, fetchFn: nodeFetch})
  const retries = policy.retries ?? 6
  const transport: HttpTransport = (config) => {
    const inner = base(config)
    const request: typeof inner.request = async (args, options) => {
      const started = performance.now()
      let attempts = 0
      try {
        return await pRetry(
          () => {
            attempts++
            return inner.request(args, options)
          },
          {retries, factor: 2, minTimeout: policy.minTimeoutMs ?? 250, maxTimeout: 8000, randomize: true, shouldRetry: ({error}) => isTransientRpcError(error)},
        )
      } catch (error) {
        const raw = args.method === 'eth_sendRawTransaction' ? (args.params as [Hex] | undefined)?.[0] : undefined
        const hash = raw === undefined ? undefined : keccak256(raw)
        if (attempts > 1 && hash !== undefined && (await knowsTransaction(inner.request, hash))) return hash as never
        if (attempts <= retries || !isTransientRpcError(error)) throw error
        throw new RpcGaveUpError({rpcUrl, method: args.method, attempts, seconds: (performance.now() - started) / 1000, cause: error})
      }
    }
    return {...inner, request}
  }
  return transport
}

/**
 * Whether the node knows a transaction: one sent again after a lost answer was taken the first time. A node that
 * mines as it receives (Hardhat, anvil) can take longer than the request's timeout to answer, and the second try
 * is then told "nonce too low" for the transaction it already mined.
 */
async function knowsTransaction(request: (args: {method: 'eth_getTransactionByHash'; params: [Hex]}) => Promise<unknown>, hash: Hex): Promise<boolean> {
  const known = await request({method: 'eth_getTransactionByHash', params: [hash]}).catch(() => null)
  return known !== null && known !== undefined
}
