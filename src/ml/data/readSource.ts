import {readFile, stat} from 'node:fs/promises'
import {createRequire} from 'node:module'
import path from 'node:path'

import type {Hex} from 'viem'

import {networkReason} from '../../store/errors.js'
import type {BlobStore} from '../../store/types.js'
import {DataInputError} from './errors.js'

/** Where a data set's files are read from: the job file's folder, and the blob store for `store:0x…` sources. */
export type BuildContext = {baseDir: string; store?: Pick<BlobStore, 'get'> | undefined}

export type SourceContext = {
  /** Relative paths are read from here (the job file's folder). */
  baseDir: string
  /** Refuse a file larger than this. */
  maxBytes: number
  /** For `store:0x…` sources. */
  store?: Pick<BlobStore, 'get'> | undefined
  /** The spec field the source came from, for error messages (`dataset.source`). */
  field: string
}

/** The file of an installed package: `npm:vega-datasets/data/cars.json` (a package's `exports` do not apply). */
function npmPath(spec: string, context: SourceContext): string {
  const match = /^((?:@[^/]+\/)?[^/]+)\/(.+)$/.exec(spec)
  if (!match) throw new DataInputError(`${context.field}: expected npm:<package>/<file>, got "npm:${spec}"`)
  const [, name, file] = match as unknown as [string, string, string]
  // the job's folder first, then gensyn's own (a package installed beside the CLI)
  const lookups = [createRequire(path.resolve(context.baseDir, 'noop.js')), createRequire(import.meta.url)].flatMap((r) => r.resolve.paths(name) ?? [])
  const require = createRequire(import.meta.url)
  for (const lookup of lookups) {
    const candidate = path.join(lookup, name, 'package.json')
    try {
      require.resolve(candidate)
      return path.join(path.dirname(candidate), file)
    } catch {
      // not in this node_modules; try the next
    }
  }
  throw new DataInputError(`${context.field}: package ${name} is not installed (npm:${spec})`)
}

async function readLocal(file: string, context: SourceContext, shown: string): Promise<Uint8Array> {
  let size: number
  try {
    const info = await stat(file)
    if (!info.isFile()) throw new DataInputError(`${context.field}: expected a file, got a directory: ${shown}`)
    size = info.size
  } catch (error) {
    if (error instanceof DataInputError) throw error
    throw new DataInputError(`${context.field}: file not found: ${shown}`, {cause: error})
  }
  if (size > context.maxBytes) throw new DataInputError(`${context.field}: ${shown} is ${size} bytes, larger than dataset.maxBytes (${context.maxBytes})`)
  return new Uint8Array(await readFile(file))
}

async function readUrl(url: string, context: SourceContext): Promise<Uint8Array> {
  let response: Response
  try {
    response = await fetch(url, {signal: AbortSignal.timeout(60_000)})
  } catch (error) {
    throw new DataInputError(`${context.field}: ${url} is unreachable (${networkReason(error as Error)})`, {cause: error})
  }
  if (!response.ok) throw new DataInputError(`${context.field}: ${url} answered HTTP ${response.status}`)
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  if (declared > context.maxBytes) throw new DataInputError(`${context.field}: ${url} is ${declared} bytes, larger than dataset.maxBytes (${context.maxBytes})`)
  const bytes = new Uint8Array(await response.arrayBuffer())
  if (bytes.length > context.maxBytes) throw new DataInputError(`${context.field}: ${url} is ${bytes.length} bytes, larger than dataset.maxBytes (${context.maxBytes})`)
  return bytes
}

/**
 * The bytes a data source names: a path (relative to the job file), `http(s)://…`, `store:0x<sha256>` (read
 * from the blob store, which checks the hash) or `npm:<package>/<file>`.
 */
export async function readSource(source: string, context: SourceContext): Promise<Uint8Array> {
  if (/^https?:\/\//.test(source)) return readUrl(source, context)
  if (source.startsWith('store:')) {
    const hash = source.slice(6)
    if (!/^0x[0-9a-f]{64}$/.test(hash)) throw new DataInputError(`${context.field}: expected store:0x followed by 64 lowercase hex digits, got "${source}"`)
    if (!context.store) throw new DataInputError(`${context.field}: ${source} needs a blob store (run it against a devnet)`)
    const bytes = await context.store.get(hash as Hex)
    if (bytes.length > context.maxBytes) throw new DataInputError(`${context.field}: ${source} is ${bytes.length} bytes, larger than dataset.maxBytes (${context.maxBytes})`)
    return bytes
  }
  if (source.startsWith('npm:')) return readLocal(npmPath(source.slice(4), context), context, source)
  return readLocal(path.resolve(context.baseDir, source), context, source)
}
