import {Flags} from '@oclif/core'
import type {Hex} from 'viem'

import {InvalidInputError} from '../errors/base.js'
import {backendChoices, type BackendChoice} from '../ml/backend/runtimeId.js'

/** Foundry's variable for the RPC URL, read after --rpc-url and GENSYN_RPC_URL (oclif's `env` takes one name). */
export async function ethRpcUrl(): Promise<string | undefined> {
  return process.env.ETH_RPC_URL || undefined
}

/** Flags every role command shares: where the chain is, who signs, where blobs live. */
export const connectionFlags = {
  'rpc-url': Flags.string({
    description: "JSON-RPC URL of the chain. Defaults to GENSYN_RPC_URL, then ETH_RPC_URL (Foundry's), then the devnet in --state-dir.",
    env: 'GENSYN_RPC_URL',
    default: ethRpcUrl,
    helpGroup: 'CONNECTION',
  }),
  'private-key': Flags.string({
    description: 'Private key (0x + 64 hex) that signs transactions.',
    env: 'GENSYN_PRIVATE_KEY',
    helpGroup: 'CONNECTION',
    exclusive: ['account'],
  }),
  account: Flags.integer({
    description: 'Index of a devnet account (from <state-dir>/devnet.json) that signs transactions.',
    min: 0,
    helpGroup: 'CONNECTION',
  }),
  market: Flags.string({description: 'TaskMarket contract address (defaults to the devnet one).', env: 'GENSYN_MARKET', helpGroup: 'CONNECTION'}),
  registry: Flags.string({description: 'RoleRegistry contract address (defaults to the devnet one).', env: 'GENSYN_REGISTRY', helpGroup: 'CONNECTION'}),
  game: Flags.string({description: "PinpointGame contract address (defaults to the devnet one, else the market's game()).", env: 'GENSYN_GAME', helpGroup: 'CONNECTION'}),
  book: Flags.string({description: "SolverBook contract address (defaults to the devnet one, else the market's book()).", env: 'GENSYN_BOOK', helpGroup: 'CONNECTION'}),
  'state-dir': Flags.string({
    description: 'Folder that holds devnet.json, logs and local state.',
    default: '.gensyn',
    env: 'GENSYN_STATE_DIR',
    helpGroup: 'CONNECTION',
  }),
  store: Flags.string({
    description:
      'Content-addressed blob store: a folder, or the http(s):// URL of a `gensyn store serve` server (every read is checked against its hash). Defaults to the network file\'s, else the devnet one, else <state-dir>/store.',
    env: 'GENSYN_STORE',
    helpGroup: 'CONNECTION',
  }),
  'store-token': Flags.string({
    description:
      "Upload token of the `gensyn store serve` server in --store (its --token), sent with each PUT and nowhere else. Defaults to the network file's storeToken when the store is the network file's.",
    env: 'GENSYN_STORE_TOKEN',
    helpGroup: 'CONNECTION',
  }),
  'poll-interval': Flags.integer({
    description:
      "Milliseconds between polls of the chain (blocks, receipts, the market). Default: the network file's pollMs, else the chain's block time (100 on a local chain, 1000 when it cannot be measured).",
    env: 'GENSYN_POLL_MS',
    min: 10,
    helpGroup: 'CONNECTION',
  }),
  network: Flags.string({
    description: 'Network file written by `gensyn deploy` (RPC URL, chain id, contracts, store URL and token); flags override its values.',
    env: 'GENSYN_NETWORK',
    helpGroup: 'CONNECTION',
  }),
}

/** Worker threads for training's micro-batch gradients; the library reads GENSYN_THREADS when the flag is absent. */
export const threadsFlag = Flags.integer({
  description:
    "Worker threads that compute a job's micro-batch gradients (training.microBatches, docs/job-spec.md); never changes a result, only its speed. Default: GENSYN_THREADS, else the machine's cores, at most the job's micro-batches.",
  min: 1,
})

export const backendFlag = Flags.string({
  description: 'TensorFlow.js backend: wasm (default, bit-for-bit repeatable), cpu, webgpu (Dawn: a GPU, or lavapipe without one), gpu (needs @tensorflow/tfjs-node-gpu), or auto (webgpu on a hardware GPU, else wasm). `gensyn doctor` says which work here.',
  options: backendChoices as BackendChoice[],
  default: 'wasm',
  env: 'GENSYN_BACKEND',
})

/**
 * An actor's own seed (0x + 64 hex): its secrets and random choices come from it, so a replayed devnet run makes
 * the same ones. `devnet up` hands each actor one derived from the run's seed and the actor's name.
 */
export const actorSeedFlag = Flags.custom<Hex>({
  description: "Seed of its secrets and random choices (0x + 64 hex; a devnet derives one per actor from the run's --seed).",
  helpValue: 'HEX',
  async parse(input) {
    if (!/^0x[\da-fA-F]{64}$/.test(input)) throw new InvalidInputError(`--seed: expected 0x followed by 64 hex digits, got ${JSON.stringify(input)}`)
    return input as Hex
  },
})()
