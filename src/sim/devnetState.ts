import {existsSync} from 'node:fs'
import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import path from 'node:path'

import type {Address} from 'viem'

import {InvalidInputError} from '../errors/base.js'
import type {BalanceSnapshot} from './balances.js'
import type {MarketSample} from './sampleMarket.js'
import type {ResolvedScenario} from './scenario.js'
import type {ActorExit} from './actorExit.js'
import {type BackendChoice} from '../ml/backend/runtimeId.js'

/**
 * `gensyn devnet up --state FILE`: anvil dumps the chain to FILE (its own `--state` format), and everything
 * else a resumed run needs lives in the folder `FILE.d/` beside it:
 * - `devnet-state.json`: the scenario, the contracts, the accounts, the balance snapshot taken before the first
 *   run (so the report's conservation check spans every run), the jobs already finished with their results,
 *   the dropouts and the market samples;
 * - `store/`: the blob store (specs, checkpoints, proofs, models);
 * - `solvers/`: each solver's per-task secrets and checkpoints (src/actors/solverState.ts);
 * - `devnet.json` / `processes.json` while it runs: the actors' own view (they run with `--state-dir FILE.d`).
 */
export type DevnetStatePaths = {chain: string; dir: string; record: string; store: string}

export function devnetStatePaths(file: string): DevnetStatePaths {
  const chain = path.resolve(file)
  const dir = `${chain}.d`
  return {chain, dir, record: path.join(dir, 'devnet-state.json'), store: path.join(dir, 'store')}
}

/** A job of the scenario that has finished (its submitter exited on its own), with what the submitter reported. */
export type FinishedJob = {
  /** Position in scenario.jobs. */
  job: number
  submitter: string
  jobPath: string
  /** The tasks its submitter posted (decimal ids), read from the chain when it exited. */
  taskIds: string[]
  exit: ActorExit
  result: Record<string, unknown> | undefined
}

export type PersistedDevnet = {
  version: 1
  scenario: ResolvedScenario
  backend: BackendChoice
  chainId: number
  deployBlock: bigint
  contracts: {registry: Address; market: Address; thresholds?: Address | undefined; config?: Address | undefined; game?: Address | undefined; book?: Address | undefined}
  /** Addresses only: the keys derive from anvil's mnemonic (src/sim/devnetAccounts.ts). */
  accounts: {index: number; address: Address; role: string}[]
  before: BalanceSnapshot
  finished: FinishedJob[]
  /** Dropout solvers already killed: they are not spawned again. */
  dropouts: {actor: string; taskId: string; step: number}[]
  marketSamples: MarketSample[]
  /** Seconds the actors have run over all earlier runs: a job's `at` counts from the first start. */
  elapsedSeconds: number
  createdAt: string
  updatedAt: string
}

/**
 * What `--state FILE` holds: undefined for a fresh start (neither FILE nor FILE.d/devnet-state.json exists),
 * the saved run to resume, or a one-line InvalidInputError naming what is wrong with it.
 */
export async function readDevnetState(file: string): Promise<PersistedDevnet | undefined> {
  const paths = devnetStatePaths(file)
  const hasChain = existsSync(paths.chain)
  const hasRecord = existsSync(paths.record)
  if (!hasChain && !hasRecord) return undefined
  if (!hasRecord) {
    throw new InvalidInputError(`--state: ${file} has no ${path.basename(paths.dir)}/devnet-state.json beside it: expected a state written by \`gensyn devnet up --state\``, {
      details: 'A run that failed before its contracts were deployed leaves only the chain file: delete it to start over.',
    })
  }
  if (!hasChain) throw new InvalidInputError(`--state: ${file} is missing (the chain was never dumped): delete ${paths.dir} to start over`)
  try {
    // anvil writes its dump in place: a crash in the middle of a write leaves a cut-off file.
    JSON.parse(await readFile(paths.chain, 'utf8'))
  } catch {
    throw new InvalidInputError(`--state: ${file}: expected an anvil state dump (JSON), found a damaged file`)
  }
  let record: PersistedDevnet
  try {
    record = JSON.parse(await readFile(paths.record, 'utf8'), reviveBigints) as PersistedDevnet
  } catch {
    throw new InvalidInputError(`--state: ${paths.record}: expected JSON written by gensyn, found a damaged file`)
  }
  if (record.version !== 1) throw new InvalidInputError(`--state: ${paths.record}: expected version 1, found ${String(record.version)}`)
  return record
}

/** Writes FILE.d/devnet-state.json atomically (a crash mid-write keeps the previous one). */
export async function writeDevnetState(file: string, record: PersistedDevnet): Promise<void> {
  const paths = devnetStatePaths(file)
  await mkdir(paths.dir, {recursive: true})
  const temporary = `${paths.record}.${process.pid}.tmp`
  await writeFile(temporary, `${JSON.stringify({...record, updatedAt: new Date().toISOString()}, tagBigints, 2)}\n`, {mode: 0o600})
  await rename(temporary, paths.record)
}

/** bigints as {"$bigint": "123"}, so reading restores exactly the types written. */
function tagBigints(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? {$bigint: value.toString()} : value
}

function reviveBigints(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value)
    const tagged = (value as {$bigint?: unknown}).$bigint
    if (keys.length === 1 && typeof tagged === 'string' && /^-?\d+$/.test(tagged)) return BigInt(tagged)
  }
  return value
}
