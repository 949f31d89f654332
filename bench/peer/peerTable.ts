import {renderTable} from '../../src/ui/renderTable.js'
import {type PeerMeasurement, summarizePeerRow} from './summarizePeerRow.js'

/** A model the PyTorch side cannot build (or gensyn cannot train), and why. */
export type PeerSkip = {model: string; skipped: string}

const rate = (stepsPerSecond: number) => stepsPerSecond.toFixed(stepsPerSecond < 100 ? 1 : 0)
const gflops = (flopsPerStep: number, stepsPerSecond: number) => {
  const value = (flopsPerStep * stepsPerSecond) / 1e9
  // the tabular fixtures run well under a GFLOP/s: two significant digits rather than 0.00
  return value < 1 ? value.toPrecision(2) : value.toFixed(2)
}

/**
 * The side-by-side table of `npm run bench:peer`: per model its step FLOPs, gensyn's steps/s and GFLOP/s,
 * PyTorch's at 1 and 2 threads (whichever were run) and at its best, the ratio gensyn / PyTorch-best against the
 * target, and the spread of the repeats. Skipped models follow, each with its reason.
 */
export function peerTable(rows: (PeerMeasurement | PeerSkip)[]): string {
  const measured = rows.filter((row): row is PeerMeasurement => !('skipped' in row))
  const threads = [...new Set(measured.flatMap((row) => row.torch.map((run) => run.threads)))].sort((a, b) => a - b)
  const header = ['model', 'batch', 'optimizer', 'MFLOP/step', 'gensyn steps/s', 'GFLOP/s', ...threads.map((n) => `torch ${n}t steps/s`), 'torch best', 'GFLOP/s', 'gensyn/torch', 'target', 'spread']
  const body = measured.map((row) => {
    const summary = summarizePeerRow(row)
    const perThreads = threads.map((n) => {
      const run = row.torch.find((r) => r.threads === n)
      return run ? rate(Math.max(...run.stepsPerSecond)) : '-'
    })
    return [
      row.model,
      String(row.batchSize),
      row.optimizer,
      (row.flopsPerStep / 1e6).toFixed(2),
      rate(summary.gensyn),
      gflops(row.flopsPerStep, summary.gensyn),
      ...perThreads,
      `${rate(summary.torch)} (${summary.torchThreads}t)`,
      gflops(row.flopsPerStep, summary.torch),
      `${summary.ratio.toFixed(2)}x`,
      `>= ${row.target}x ${summary.meetsTarget ? 'met' : 'MISSED'}`,
      `${(summary.spread * 100).toFixed(0)}%`,
    ]
  })
  const skipped = rows.filter((row): row is PeerSkip => 'skipped' in row).map((row) => `${row.model}: not measured: ${row.skipped}`)
  return [renderTable(header, body), ...skipped].join('\n')
}
