import {readdirSync, readFileSync, statSync} from 'node:fs'
import path from 'node:path'

import {loadMnist, loadMnistRaw, type MnistSplit} from '../../src/ml/data/loadMnist.js'

const window = 32
const base = 0x01000193

/** A polynomial hash of bytes[start, start + window), the same one the rolling scan keeps. */
function windowHash(bytes: Uint8Array, start: number): number {
  let h = 0
  for (let i = 0; i < window; i++) h = (Math.imul(h, base) + (bytes[start + i] as number)) | 0
  return h
}

type Needle = {bytes: Uint8Array; offset: number; what: string}

/** One needle per sample and encoding: the sample's bytes, with the window (inside it) the scan looks for. */
function needlesFor(split: MnistSplit, limit: number): Needle[] {
  const raw = loadMnistRaw({split, limit})
  const scaled = loadMnist({split, limit})
  const needles: Needle[] = []
  for (let i = 0; i < limit; i++) {
    const pixels = raw.pixels.subarray(i * 784, (i + 1) * 784)
    const floats = new Uint8Array(Float32Array.from(scaled.images.subarray(i * 784, (i + 1) * 784)).buffer)
    for (const [encoding, bytes, unit] of [['uint8 pixels', pixels, 1], ['float32 pixels', floats, 4]] as const) {
      // the inkiest window: one of pure background would match every run of zeros in every blob
      let offset = 0
      let best = -1
      for (let start = 0; start + window <= bytes.length; start += unit) {
        let ink = 0
        for (let k = start; k < start + window; k++) if (bytes[k] !== 0) ink++
        if (ink > best) [best, offset] = [ink, start]
      }
      needles.push({bytes, offset, what: `${split} sample ${i} as ${encoding}`})
    }
  }
  return needles
}

/**
 * Every place in the files under `dir` that holds one of the first `limits` raw MNIST samples whole, as the IDX
 * file's bytes or as the float32 pixels training reads: a rolling hash over every offset of every file, each
 * hit compared byte for byte. Empty when the folder holds no raw sample in either encoding.
 */
export function findRawSamples(dir: string, limits: Partial<Record<MnistSplit, number>>): string[] {
  const needles = Object.entries(limits).flatMap(([split, limit]) => needlesFor(split as MnistSplit, limit))
  const byHash = new Map<number, Needle[]>()
  // a typed-array pre-filter: most offsets are turned away without a Map lookup
  const filterBits = 1 << 24
  const filter = new Uint8Array(filterBits)
  for (const needle of needles) {
    const h = windowHash(needle.bytes, needle.offset)
    byHash.set(h, [...(byHash.get(h) ?? []), needle])
    filter[h & (filterBits - 1)] = 1
  }
  let top = 1 // base^(window - 1), to drop the byte leaving the window
  for (let i = 0; i < window - 1; i++) top = Math.imul(top, base)
  const found: string[] = []
  const files = (readdirSync(dir, {recursive: true}) as string[]).map((name) => path.join(dir, name)).filter((file) => statSync(file).isFile())
  for (const file of files) {
    const bytes = new Uint8Array(readFileSync(file))
    if (bytes.length < window) continue
    let h = windowHash(bytes, 0)
    for (let at = 0; ; at++) {
      const candidates = filter[h & (filterBits - 1)] === 1 ? byHash.get(h) : undefined
      if (candidates)
        for (const needle of candidates) {
          const start = at - needle.offset
          if (start < 0 || start + needle.bytes.length > bytes.length) continue
          if (Buffer.compare(bytes.subarray(start, start + needle.bytes.length), needle.bytes) === 0) found.push(`${needle.what} in ${file} at byte ${start}`)
        }
      if (at + window >= bytes.length) break
      h = (Math.imul((h - Math.imul(bytes[at] as number, top)) | 0, base) + (bytes[at + window] as number)) | 0
    }
  }
  return found
}
