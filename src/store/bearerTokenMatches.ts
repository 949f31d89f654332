import {createHash, timingSafeEqual} from 'node:crypto'

/**
 * True when an `authorization` header is `Bearer <token>`. Both sides are hashed first so that
 * timingSafeEqual compares equal lengths: the time taken says nothing about the token, not even its length.
 */
export function bearerTokenMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (\S+)$/i.exec(header?.trim() ?? '')?.[1] ?? ''
  const digest = (value: string) => createHash('sha256').update(value).digest()
  const same = timingSafeEqual(digest(given), digest(token))
  return same && given !== ''
}
