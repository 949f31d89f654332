import {BaseError, type BaseErrorParameters} from '../errors/base.js'

/** No usable anvil binary: names where it looked. */
export class AnvilNotFoundError extends BaseError {
  override name = 'AnvilNotFoundError'
  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(shortMessage, parameters)
  }
}

/** anvil did not start (exited, timed out, or never answered JSON-RPC). */
export class AnvilStartError extends BaseError {
  override name = 'AnvilStartError'
  readonly binary: string
  constructor({binary, reason, logs, cause}: {binary: string; reason: string; logs?: string[] | undefined; cause?: unknown}) {
    const tail = (logs ?? []).join('').trim().split('\n').slice(-10).join('\n')
    super(`anvil failed to start (${binary}): ${reason}`, {
      details: tail ? `last anvil output:\n${tail}` : undefined,
      cause,
    })
    this.binary = binary
  }
}

/** rpcUrl/pid asked for before start() finished. */
export class AnvilNotStartedError extends BaseError {
  override name = 'AnvilNotStartedError'
  constructor(what: string) {
    super(`anvil: ${what} is only known once start() has resolved`)
  }
}

/** The JSON-RPC endpoint did not answer. */
export class ChainUnreachableError extends BaseError {
  override name = 'ChainUnreachableError'
  constructor(rpcUrl: string, cause: unknown) {
    super(`cannot reach the chain at ${rpcUrl}: ${cause instanceof Error ? firstLine(cause.message) : String(cause)}`, {
      details: 'is the devnet running? start one with `gensyn devnet up` or pass --rpc-url',
      cause,
    })
  }
}

/** A deployment transaction reverted or the contracts are not wired as expected. */
export class DeployError extends BaseError {
  override name = 'DeployError'
  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(shortMessage, parameters)
  }
}

/** .gensyn/devnet.json is missing or does not match its schema. */
export class DevnetConfigError extends BaseError {
  override name = 'DevnetConfigError'
  readonly path: string
  constructor(path: string, shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(shortMessage, parameters)
    this.path = path
  }
}

/** anvil's JSON-RPC endpoint gave no eth_chainId answer in time (AnvilStartError wraps it with anvil's output). */
export class RpcNotReadyError extends BaseError {
  override name = 'RpcNotReadyError'
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text
}

/**
 * No receipt for a sent transaction within the wait's timeout. Names the transaction and what the node knows of
 * it (unknown, pending, or mined without a receipt) and the chain head, so a stuck wait says what it waited for.
 */
export class ReceiptTimeoutError extends BaseError {
  override name = 'ReceiptTimeoutError'
  readonly hash: string
  constructor({hash, label, timeout, state}: {hash: string; label?: string | undefined; timeout: number; state: string}) {
    super(`no receipt for ${label ?? 'transaction'} ${hash} after ${timeout / 1000} s: ${state}`)
    this.hash = hash
  }
}

/**
 * A JSON-RPC call kept failing with transient errors (unreachable, timeouts, 429, 5xx, rate limits) through every
 * retry: names the endpoint, the method and how long it tried, so a dead or throttling RPC reads as such.
 */
export class RpcGaveUpError extends BaseError {
  override name = 'RpcGaveUpError'
  readonly rpcUrl: string
  constructor({rpcUrl, method, attempts, seconds, cause}: {rpcUrl: string; method: string; attempts: number; seconds: number; cause: unknown}) {
    const reason = cause instanceof Error ? firstLine((cause as Error & {shortMessage?: string}).shortMessage ?? cause.message) : String(cause)
    super(`RPC ${rpcUrl}: ${method} failed ${attempts} times over ${seconds.toFixed(1)} s, giving up: ${reason}`, {
      details: 'is the node up and reachable? a hosted RPC may be rate-limiting: raise --poll-interval (GENSYN_POLL_MS)',
      docsPath: 'multi-host.md',
      cause,
    })
    this.rpcUrl = rpcUrl
  }
}
