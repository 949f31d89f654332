import {CanonicalJsonError, canonicalJson} from './canonicalJson.js'

/** Deepest nesting of arrays and objects a canonical JSON document may have: far above any spec or proof. */
export const maxJsonDepth = 64

/**
 * Parses bytes that must be canonical JSON (canonicalJson.ts): strict UTF-8, nesting at most `maxDepth`
 * deep (checked on the text first, so nothing recursive ever sees a deeper value), and bytes equal to the
 * canonical encoding of what they parse to. That last rule rejects duplicate keys (JSON.parse would keep
 * the last one silently), unsorted keys, whitespace, and other spellings of the same number or string, so
 * one value has exactly one accepted byte string and its hash names it.
 *
 * @throws CanonicalJsonError, one line naming `what` and the first problem
 */
export function parseCanonicalJson(bytes: Uint8Array, what: string, maxDepth = maxJsonDepth): unknown {
  let text: string
  try {
    text = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true}).decode(bytes) // a BOM stays in the text, and is refused
  } catch {
    throw new CanonicalJsonError(`${what}: expected UTF-8 text, got invalid byte sequences`)
  }
  const depth = jsonNestingDepth(text, maxDepth)
  if (depth > maxDepth) throw new CanonicalJsonError(`${what}: expected JSON nested at most ${maxDepth} deep, got deeper`)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new CanonicalJsonError(`${what}: malformed JSON: ${(error as Error).message.split('\n')[0]}`)
  }
  let canonical: string
  try {
    canonical = canonicalJson(value)
  } catch (error) {
    throw new CanonicalJsonError(`${what}: ${(error as CanonicalJsonError).shortMessage ?? 'not encodable as canonical JSON'}`)
  }
  if (canonical !== text) throw new CanonicalJsonError(`${what}: expected canonical JSON (sorted keys, each once, no whitespace), ${firstDifference(text, canonical)}`)
  return value
}

/**
 * How deep arrays and objects nest in JSON text, counting brackets outside strings; stops counting once past
 * `stopAt`. Malformed text gets some number: JSON.parse reports what is wrong with it.
 */
function jsonNestingDepth(text: string, stopAt: number): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // backslash: the next character is escaped
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      depth++
      if (depth > deepest) deepest = depth
      if (deepest > stopAt) return deepest
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return deepest
}

function firstDifference(text: string, canonical: string): string {
  let i = 0
  while (i < text.length && i < canonical.length && text[i] === canonical[i]) i++
  return `got a difference at byte ${new TextEncoder().encode(text.slice(0, i)).length} (duplicate key, order, spacing or spelling)`
}
