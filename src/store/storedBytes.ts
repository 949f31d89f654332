import {readdir, stat} from 'node:fs/promises'
import {join} from 'node:path'

/**
 * Bytes held by the blobs of a store folder (`sha256/<2 hex>/<62 hex>`; temporary files are not counted),
 * read once when a server starts so its --max-store-mb limit counts what was there before it. A store of
 * n blobs costs n stat calls.
 */
export async function storedBytes(root: string): Promise<number> {
  const sha = join(root, 'sha256')
  const prefixes = await readdir(sha).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[]
    throw error
  })
  let total = 0
  for (const prefix of prefixes) {
    if (!/^[0-9a-f]{2}$/.test(prefix)) continue
    const names = await readdir(join(sha, prefix))
    const sizes = await Promise.all(names.map((name) => stat(join(sha, prefix, name)).then((stats) => (stats.isFile() ? stats.size : 0), () => 0)))
    total += sizes.reduce((sum, size) => sum + size, 0)
  }
  return total
}
