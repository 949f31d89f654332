import type {FlopCount} from './kernelFlops.js'
import {opClasses, type WorkTable, weightMilli} from './workTable.js'

/**
 * Work units of `steps` training steps of `flops` each (docs/market.md, section 1):
 * weighted = sum(flops[class] * weightMilli[class]) / 1000, perStep = weighted / flopsPerWorkUnit,
 * total = ceil(perStep * steps). The total is computed in integers (FLOPs are whole numbers), so it is exact
 * and every party that estimates the same spec with the same table gets the same number.
 */
export function workUnitsFor(flops: FlopCount, steps: number, table: WorkTable): {perStep: number; total: bigint} {
  let weightedMilli = 0n
  for (const opClass of opClasses) weightedMilli += BigInt(flops[opClass]) * BigInt(weightMilli(table, opClass))
  const divisor = 1000n * BigInt(table.flopsPerWorkUnit)
  const scaled = weightedMilli * BigInt(steps)
  return {perStep: Number(weightedMilli) / 1000 / table.flopsPerWorkUnit, total: (scaled + divisor - 1n) / divisor}
}
