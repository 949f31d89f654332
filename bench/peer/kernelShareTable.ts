import {renderTable} from '../../src/ui/renderTable.js'
import type {KernelShares} from './kernelShares.js'

const percent = (share: number) => `${(share * 100).toFixed(1)}%`

/** The kernels of one model's step by share (the first `top`, the rest summed), then the time outside kernels. */
export function kernelShareTable(model: string, shares: KernelShares, top = 8): string {
  const shown = shares.kernels.slice(0, top)
  const rest = shares.kernels.slice(top)
  const rows = shown.map((k) => [model, k.kernel, k.callsPerStep.toFixed(k.callsPerStep % 1 === 0 ? 0 : 1), k.msPerStep.toFixed(3), percent(k.share)])
  if (rest.length > 0) {
    const ms = rest.reduce((sum, k) => sum + k.msPerStep, 0)
    const calls = rest.reduce((sum, k) => sum + k.callsPerStep, 0)
    rows.push([model, `${rest.length} other kernels`, calls.toFixed(calls % 1 === 0 ? 0 : 1), ms.toFixed(3), percent(ms / shares.stepMs)])
  }
  rows.push([model, 'outside kernels (tape, tidy, batch, dispatch, profiler)', '', shares.outsideMs.toFixed(3), percent(shares.outsideShare)])
  rows.push([model, 'whole step (profiled)', '', shares.stepMs.toFixed(3), '100%'])
  return renderTable(['model', 'kernel', 'calls/step', 'ms/step', 'share of step'], rows)
}
