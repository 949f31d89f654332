import {access, link, mkdir, readFile, rename, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {type Address, isAddress} from 'viem'
import {z} from 'zod'

import {InvalidInputError} from '../errors/base.js'

const address = z.custom<Address>((value) => typeof value === 'string' && isAddress(value, {strict: false}), {
  message: 'expected an address (0x + 40 hex digits)',
})

/**
 * A network file (`gensyn deploy --out network.json`): where the chain is and where the contracts live, so
 * that an actor on any machine needs this file, its own key and nothing else. It never holds a private key;
 * it may hold the store's upload token (`storeToken`), a secret, and is then written readable by its owner only.
 */
export const networkFileSchema = z
  .strictObject({
    /** JSON-RPC URL the deployer used; other hosts may need their own (flags override it). */
    rpcUrl: z.url({protocol: /^(https?|wss?)$/}),
    chainId: z.int().positive(),
    /** Block of the first deployment transaction: where event scans start (decimal string). */
    deployBlock: z.string().regex(/^\d+$/, 'expected a block number as a decimal string'),
    contracts: z.strictObject({
      registry: address,
      market: address,
      config: address,
      book: address,
      disputes: address,
      thresholds: address,
      game: address,
    }),
    /** Milliseconds between an actor's polls of this chain (optional; default: its block time, docs/multi-host.md). */
    pollMs: z.int().min(10).optional(),
    /** URL of a `gensyn store serve` server every actor reads and writes blobs through (optional). */
    store: z.url({protocol: /^https?$/}).optional(),
    /** That server's upload token (`store serve --token`), sent with every PUT to `store` and nowhere else. */
    storeToken: z
      .string()
      .regex(/^[\x21-\x7e]{16,512}$/, 'expected a token of 16 to 512 printable ASCII characters without spaces')
      .optional(),
    deployer: address,
    treasury: address,
    createdAt: z.iso.datetime({offset: true}),
  })
  .refine((network) => network.storeToken === undefined || network.store !== undefined, {message: 'expected a store URL beside the token', path: ['storeToken']})

export type NetworkFile = z.infer<typeof networkFileSchema>

/** Reads and validates a network file; every failure is one line naming the file and the field (exit code 2). */
export async function readNetworkFile(file: string): Promise<NetworkFile> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new InvalidInputError(`--network: expected a network file (from gensyn deploy), ${code === 'ENOENT' ? `${file} does not exist` : `cannot read ${file} (${code})`}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new InvalidInputError(`--network ${file}: expected JSON`)
  }
  const result = networkFileSchema.safeParse(json)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)'
  throw new InvalidInputError(`--network ${file}: ${where}: ${issue?.message ?? 'invalid'}`)
}

/** Fails (one line) when `file` exists: checked before deploying, so no gas is spent on a run that cannot record its result. */
export async function assertNetworkFileFree(file: string): Promise<void> {
  const exists = await access(file).then(
    () => true,
    () => false,
  )
  if (exists) throw existsError(file)
}

function existsError(file: string): InvalidInputError {
  return new InvalidInputError(`--out: ${file} already exists (it may name live contracts); pass --force to replace it`)
}

/** Writes the file atomically (a crash never leaves half of one), refusing to replace one unless `force`. */
export async function writeNetworkFile(file: string, network: NetworkFile, force = false): Promise<string> {
  const valid = networkFileSchema.parse(network)
  const resolved = path.resolve(file)
  await mkdir(path.dirname(resolved), {recursive: true})
  const temporary = `${resolved}.${process.pid}.tmp`
  // A file with the store token in it is a secret: only its owner may read it.
  await writeFile(temporary, `${JSON.stringify(valid, null, 2)}\n`, {mode: valid.storeToken === undefined ? 0o666 : 0o600})
  if (!force) {
    // link() fails if the target exists, so two deploys racing for one name cannot both win.
    try {
      await link(temporary, resolved)
    } catch (error) {
      await rm(temporary, {force: true})
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw existsError(file)
      throw error
    }
    await rm(temporary, {force: true})
    return resolved
  }
  await rename(temporary, resolved)
  return resolved
}
