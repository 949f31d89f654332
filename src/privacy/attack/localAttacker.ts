import {featureCount, imageSide} from '../mappingStages.js'
import {clipToPixels, type Attacker, type KnownPairs} from './attacker.js'
import {RidgeAccumulator} from './ridgeAccumulator.js'

/** The local attacker reads the mapped image in a (2r + 1) x (2r + 1) window around each pixel: 5 x 5. */
export const localWindowRadius = 2
const windowSide = 2 * localWindowRadius + 1
const windowSize = windowSide * windowSide
/** Relative ridge penalty of each per-pixel fit (see {@link RidgeAccumulator.fit}). */
export const localRidge = 1e-3

/** The mapped image's window around pixel (row, col), zeros outside the image, written into `out`. */
function readWindow(mapped: Float32Array, offset: number, row: number, col: number, out: Float64Array): void {
  let w = 0
  for (let dr = -localWindowRadius; dr <= localWindowRadius; dr++)
    for (let dc = -localWindowRadius; dc <= localWindowRadius; dc++) {
      const r = row + dr
      const c = col + dc
      out[w++] = r < 0 || r >= imageSide || c < 0 || c >= imageSide ? 0 : (mapped[offset + r * imageSide + c] as number)
    }
}

/**
 * A ridge regression per pixel of the raw pixel on the mapped image's 5 x 5 window around it (+ bias): 26
 * unknowns a pixel instead of 785, so a mapping that keeps the 2-D layout (local: a 3 x 3 filter and a gain
 * per pixel, whose inverse is close to local) falls to a handful of pairs. Blind to anything a mapping moves
 * further than two pixels, so it learns nothing from orthogonal or tanh-mix.
 */
export function localAttacker(relativeLambda = localRidge): Attacker {
  const fits = Array.from({length: featureCount}, () => new RidgeAccumulator(windowSize, 1))
  const window = new Float64Array(windowSize)
  const pixel = new Float64Array(1)
  return {
    name: 'local',
    observe({raw, mapped, count}: KnownPairs): void {
      for (let t = 0; t < count; t++)
        for (let p = 0; p < featureCount; p++) {
          readWindow(mapped, t * featureCount, Math.floor(p / imageSide), p % imageSide, window)
          pixel[0] = raw[t * featureCount + p] as number
          ;(fits[p] as RidgeAccumulator).add(window, pixel)
        }
    },
    async reconstruct(mapped: Float32Array, count: number): Promise<Float32Array> {
      const guess = new Float64Array(count * featureCount)
      for (let p = 0; p < featureCount; p++) {
        const {weights, bias} = (fits[p] as RidgeAccumulator).fit(relativeLambda)
        for (let t = 0; t < count; t++) {
          readWindow(mapped, t * featureCount, Math.floor(p / imageSide), p % imageSide, window)
          let v = bias[0] as number
          for (let w = 0; w < windowSize; w++) v += (window[w] as number) * (weights[w] as number)
          guess[t * featureCount + p] = v
        }
      }
      return clipToPixels(guess)
    },
  }
}
