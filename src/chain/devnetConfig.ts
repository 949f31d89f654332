import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {type Address, getAddress, type Hex, isAddress} from 'viem'
import {privateKeyToAddress} from 'viem/accounts'
import {z} from 'zod'

import {DevnetConfigError} from './errors.js'

/** File name of the devnet state inside the state dir (`.gensyn/` by default). */
export const devnetConfigFile = 'devnet.json'

const address = z.custom<Address>((value) => typeof value === 'string' && isAddress(value, {strict: false}), {
  message: 'expected an address (0x + 40 hex digits)',
})
const privateKey = z.custom<Hex>((value) => typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value), {
  message: 'expected a private key (0x + 64 hex digits)',
})

export const devnetConfigSchema = z.object({
  rpcUrl: z.url({protocol: /^(https?|wss?)$/}),
  chainId: z.int().positive(),
  /**
   * `thresholds` (ThresholdRegistry), `config` (ProtocolConfig), `game` (PinpointGame) and `book` (SolverBook) are
   * optional: files written before they existed still read (readers fall back to `market.config()`,
   * `market.game()` and `market.book()`).
   */
  contracts: z.object({
    registry: address,
    market: address,
    thresholds: address.optional(),
    config: address.optional(),
    game: address.optional(),
    book: address.optional(),
  }),
  /** Block of the contract deployment (decimal string in the file): where event scans start. */
  deployBlock: z
    .union([z.string().regex(/^\d+$/), z.bigint().nonnegative()])
    .transform((value) => BigInt(value))
    .optional(),
  accounts: z
    .array(
      z
        .object({
          index: z.int().nonnegative(),
          address,
          privateKey,
          role: z.string().min(1).optional(),
        })
        .refine((account) => privateKeyToAddress(account.privateKey) === getAddress(account.address), {
          message: 'address does not belong to privateKey',
          path: ['address'],
        }),
    )
    .refine((accounts) => new Set(accounts.map((account) => account.index)).size === accounts.length, {
      message: 'account indexes must be unique',
    }),
  storeDir: z.string().min(1),
  createdAt: z.iso.datetime({offset: true}),
})

export type DevnetConfig = z.output<typeof devnetConfigSchema>
export type DevnetAccountEntry = DevnetConfig['accounts'][number]

export function devnetConfigPath(dir: string): string {
  return path.join(dir, devnetConfigFile)
}

/**
 * Reads and validates `<dir>/devnet.json` (dir is the state dir, `.gensyn` by default). Throws a
 * {@link DevnetConfigError} (exit code 2) when it is missing, not JSON, or not the expected shape.
 */
export async function readDevnetConfig(dir: string): Promise<DevnetConfig> {
  const file = devnetConfigPath(dir)
  const shown = display(file)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new DevnetConfigError(file, `no devnet found at ${shown}: run \`gensyn devnet up\` or pass --rpc-url`, {exitCode: 2})
    }
    throw new DevnetConfigError(file, `cannot read ${shown}: ${(error as Error).message}`, {exitCode: 2, cause: error})
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new DevnetConfigError(file, `${shown}: expected JSON (${(error as Error).message})`, {
      exitCode: 2,
      details: 'delete it and run `gensyn devnet up` again',
      cause: error,
    })
  }
  return validate(file, json)
}

/** Validates and writes `<dir>/devnet.json` atomically, readable by its owner only (it holds keys). */
export async function writeDevnetConfig(dir: string, config: z.input<typeof devnetConfigSchema>): Promise<string> {
  const file = devnetConfigPath(dir)
  const valid = validate(file, config)
  const json = JSON.stringify(
    {...valid, deployBlock: valid.deployBlock === undefined ? undefined : valid.deployBlock.toString()},
    null,
    2,
  )
  await mkdir(dir, {recursive: true})
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, `${json}\n`, {mode: 0o600})
  await rename(temporary, file)
  return file
}

function validate(file: string, value: unknown): DevnetConfig {
  const result = devnetConfigSchema.safeParse(value)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)'
  throw new DevnetConfigError(file, `invalid devnet file ${display(file)}: ${where}: ${issue?.message ?? 'invalid'}`, {
    exitCode: 2,
    details: result.error.issues.length > 1 ? z.prettifyError(result.error) : undefined,
    cause: result.error,
  })
}

function display(file: string): string {
  const relative = path.relative(process.cwd(), file)
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file
}
