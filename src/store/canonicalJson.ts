import {BaseError} from '../errors/base.js'

export class CanonicalJsonError extends BaseError {
  override name = 'CanonicalJsonError'
}

/**
 * Canonical JSON text of a value: `JSON.stringify` with object keys sorted recursively (by UTF-16 code
 * units, i.e. JavaScript's default sort), no whitespace, `undefined` object members dropped.
 * Non-finite numbers, bigints, functions and symbols are rejected, so equal values always give equal
 * bytes and every value round-trips through `JSON.parse`.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortValue(value, '$'))
}

/** UTF-8 bytes of {@link canonicalJson}. */
export function canonicalJsonBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalJson(value))
}

function sortValue(value: unknown, path: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CanonicalJsonError(`${path}: expected a finite number, got ${value}`)
    return value
  }
  if (Array.isArray(value)) return value.map((item, i) => sortValue(item, `${path}[${i}]`))
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key]
      if (item === undefined) continue
      out[key] = sortValue(item, `${path}.${key}`)
    }
    return out
  }
  throw new CanonicalJsonError(`${path}: expected a JSON value, got a ${typeof value}`)
}
