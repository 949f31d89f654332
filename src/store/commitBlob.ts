import {link, mkdir, rename, rm, stat} from 'node:fs/promises'
import {dirname} from 'node:path'

import type {ReceivedBlob} from './receiveBlob.js'

/**
 * Puts a received blob, already checked against its name, in place at `finalPath`, and returns how many
 * bytes the store grew by. A hard link claims the name atomically, so of two uploads of one blob racing
 * here exactly one counts its bytes as new; the other (and any re-upload) renames over the stored copy,
 * which repairs a copy that rotted on disk and changes nothing for an intact one. Readers that already
 * opened the old file keep reading it whole. File systems without hard links fall back to the rename.
 */
export async function commitBlob(received: ReceivedBlob, finalPath: string): Promise<number> {
  await mkdir(dirname(finalPath), {recursive: true})
  try {
    await link(received.tmpPath, finalPath)
    return received.size
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const linksUnsupported = code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP'
    if (code !== 'EEXIST' && !linksUnsupported) throw error
    const before = await stat(finalPath).then(
      (stats) => stats.size,
      () => 0,
    )
    await rename(received.tmpPath, finalPath)
    return received.size - before
  } finally {
    // After the link the temporary name remains; after a rename nothing is there and this does nothing.
    await rm(received.tmpPath, {force: true})
  }
}
