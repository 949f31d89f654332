import {constants, type Stats} from 'node:fs'
import {lstat, open} from 'node:fs/promises'
import path from 'node:path'

import {BundleError} from './errors.js'

export type ReadBundleFileParameters = {
  /** The bundle folder, a real path (symbolic links resolved). */
  root: string
  /** The path proof.json gives, relative to the root with `/` separators. */
  file: string
  /** Where the path came from, for messages: `spec.file`, `checkpoints[2].file`, `proof.json`. */
  field: string
  /** Refuse a file larger than this, before reading a byte of it. */
  maxBytes: number
}

/**
 * Reads one file of a proof bundle, as hostile input: the path must stay inside the bundle (no absolute path,
 * no `..`, `.` or empty part, no `\` or NUL), every part of it is lstat'ed and must be a real folder or, last, a
 * regular file (no symbolic link, device, fifo or socket, no folder where a file belongs), and its size is
 * checked against `maxBytes` before anything is allocated. The file is opened without following links or
 * blocking, checked again to be the same regular file, and read up to its stat size: a file that grows or is
 * swapped while being read is refused, so neither a huge nor an endless file can exhaust memory.
 *
 * @throws BundleError (exit code 2) naming the field and the path
 */
export async function readBundleFile({root, file, field, maxBytes}: ReadBundleFileParameters): Promise<Uint8Array> {
  const where = field === 'proof.json' ? 'proof.json' : `proof.json: ${field}`
  const refuse = (why: string) => new BundleError(`${where}: ${why}`)
  const parts = file.split('/')
  if (path.isAbsolute(file) || file.includes('\\') || file.includes('\0') || parts.some((part) => part === '' || part === '.' || part === '..'))
    throw refuse(`expected a path inside the bundle, got ${JSON.stringify(file)}`)
  let stats: Stats | undefined
  for (let i = 1; i <= parts.length; i++) {
    const partial = parts.slice(0, i).join('/')
    try {
      stats = await lstat(path.join(root, partial))
    } catch {
      throw field === 'proof.json' ? new BundleError(`bundle ${root}: proof.json is missing`) : refuse(`${file} is missing from the bundle`)
    }
    if (stats.isSymbolicLink())
      throw refuse(`expected a path inside the bundle, got ${JSON.stringify(file)} (${partial} is a symbolic link: a bundle holds regular files only)`)
    if (i < parts.length && !stats.isDirectory()) throw refuse(`${file}: expected ${partial} to be a folder, got ${kindOf(stats)}`)
  }
  if (!stats?.isFile()) throw refuse(`expected ${file} to be a regular file, got ${stats ? kindOf(stats) : 'nothing'}`)
  if (stats.size > maxBytes) throw refuse(`${file} is ${stats.size} bytes, expected at most ${maxBytes} (the bundle limit for it)`)
  return readRegularFile(path.join(root, file), stats, refuse)
}

async function readRegularFile(full: string, expected: Stats, refuse: (why: string) => BundleError): Promise<Uint8Array> {
  let handle
  try {
    handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    throw refuse(`${path.basename(full)} cannot be opened`)
  }
  try {
    const opened = await handle.stat()
    if (!opened.isFile() || opened.ino !== expected.ino || opened.dev !== expected.dev) throw refuse(`${path.basename(full)} was replaced while being read`)
    // one byte more than the stat size: reading it means the file grew after the stat
    const buffer = new Uint8Array(expected.size + 1)
    let filled = 0
    while (filled < buffer.length) {
      const {bytesRead} = await handle.read(buffer, filled, buffer.length - filled, filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    if (filled !== expected.size) throw refuse(`${path.basename(full)} changed size while being read (${expected.size} bytes at stat, ${filled} read)`)
    return buffer.subarray(0, filled)
  } finally {
    await handle.close()
  }
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder'
  if (stats.isFIFO()) return 'a fifo'
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device'
  if (stats.isSocket()) return 'a socket'
  if (stats.isSymbolicLink()) return 'a symbolic link'
  return 'a regular file'
}
