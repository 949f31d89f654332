import {randomBytes} from 'node:crypto'
import {chmod, link, mkdir, readFile, rename, unlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import type {Hex} from 'viem'
import {z} from 'zod'
import {privacyMappings} from '../ml/spec/schema.js'
import {PrivacyError} from './errors.js'

const hex32 = z.string().regex(/^0x[0-9a-f]{64}$/, {error: 'expected 0x followed by 64 lowercase hex digits'})

const keyFileSchema = z.strictObject({
  format: z.literal('gensyn-privacy-key/v1'),
  mapping: z.enum(privacyMappings),
  key: hex32,
  /** The block whose hash went into the key (the last one before the submission). */
  blockNumber: z.string().regex(/^[0-9]+$/),
  blockHash: hex32,
  /** The mapped data set's blob hash (the task specs' privacy.data). */
  data: hex32,
  inputShape: z.array(z.number().int().positive()).min(1),
  taskIds: z.array(z.string().regex(/^[0-9]+$/)),
})

/** What the submitter keeps to turn a private task's model back into one that takes raw inputs. */
export type PrivacyKey = z.output<typeof keyFileSchema>

async function writePrivate(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), {recursive: true, mode: 0o700})
  const tmp = `${file}.tmp-${process.pid}`
  await writeFile(tmp, text, {mode: 0o600})
  await rename(tmp, file)
  await chmod(file, 0o600)
}

/**
 * The submitter's secret (32 random bytes, hex, in a 0600 file), created on first use. It never leaves this
 * machine: only keys derived from it and a block hash are used, and only locally.
 */
export async function loadOrCreateSecret(file: string): Promise<Hex> {
  try {
    const text = (await readFile(file, 'utf8')).trim()
    if (!hex32.safeParse(text).success) throw new PrivacyError(`privacy secret ${file}: expected 0x followed by 64 lowercase hex digits`)
    return text as Hex
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    const secret: Hex = `0x${randomBytes(32).toString('hex')}`
    // Of two submitters starting at once, one writes and both use what it wrote.
    return (await createSecret(file, secret)) ? secret : loadOrCreateSecret(file)
  }
}

/**
 * Writes `secret` as the submitter's secret unless one is there already (exclusive create, mode 0600); returns
 * whether it wrote. A seeded devnet run gives each submitter a secret derived from the run's seed this way.
 */
export async function createSecret(file: string, secret: Hex): Promise<boolean> {
  await mkdir(path.dirname(file), {recursive: true, mode: 0o700})
  // Written whole to a file of its own, then linked into place: link() fails if the secret exists and never
  // shows a reader a file created but not yet written (an exclusive create of `file` itself did, once in CI).
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`
  await writeFile(tmp, `${secret}\n`, {mode: 0o600})
  try {
    await link(tmp, file)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    await unlink(tmp)
  }
}

/** Writes a key file (mode 0600): `models get --key FILE` reads it. */
export async function writeKeyFile(file: string, key: PrivacyKey): Promise<void> {
  await writePrivate(file, `${JSON.stringify(key, null, 2)}\n`)
}

export async function readKeyFile(file: string): Promise<PrivacyKey> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new PrivacyError(`key file not found: ${file}`, {details: 'gensyn submit writes one per private task under --keys (default .gensyn/keys).', cause: error})
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new PrivacyError(`key file ${file}: expected JSON, got unreadable text`)
  }
  const parsed = keyFileSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new PrivacyError(`key file ${file}: ${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'invalid'}`)
  }
  return parsed.data
}

/** Where `gensyn submit` keeps the secret and the key files by default. */
export const defaultKeysDir = path.join('.gensyn', 'keys')

export function secretPath(keysDir: string): string {
  return path.join(keysDir, 'secret')
}

export function keyFilePath(keysDir: string, taskId: string): string {
  return path.join(keysDir, `task-${taskId}.json`)
}
