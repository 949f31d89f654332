/** One model measured on both sides: the steps/s of every timed repeat. */
export type PeerMeasurement = {
  model: string
  batchSize: number
  optimizer: string
  /** Forward + loss + backward FLOPs of one step (peerFlops). */
  flopsPerStep: number
  /** The ratio gensyn / PyTorch-best the model should reach (peerTarget). */
  target: number
  gensyn: number[]
  torch: {threads: number; stepsPerSecond: number[]}[]
}

export type PeerSummary = {
  gensyn: number
  /** PyTorch's steps/s at its best thread count, and that count. */
  torch: number
  torchThreads: number
  /** gensyn / PyTorch's best. */
  ratio: number
  meetsTarget: boolean
  /** (best - worst) / best over the repeats, the larger of the two sides': how noisy the machine was. */
  spread: number
}

const best = (values: number[]) => Math.max(...values)
const spreadOf = (values: number[]) => (best(values) - Math.min(...values)) / best(values)

/** The best of each side's repeats (machine noise only ever slows a run down), their ratio and its target. */
export function summarizePeerRow(row: PeerMeasurement): PeerSummary {
  if (row.gensyn.length === 0 || row.torch.length === 0 || row.torch.some((run) => run.stepsPerSecond.length === 0))
    throw new RangeError(`summarizePeerRow: ${row.model}: expected at least one repeat on each side`)
  const gensyn = best(row.gensyn)
  const fastest = row.torch.reduce((a, b) => (best(b.stepsPerSecond) > best(a.stepsPerSecond) ? b : a))
  const torch = best(fastest.stepsPerSecond)
  const spread = Math.max(spreadOf(row.gensyn), ...row.torch.map((run) => spreadOf(run.stepsPerSecond)))
  return {gensyn, torch, torchThreads: fastest.threads, ratio: gensyn / torch, meetsTarget: gensyn / torch >= row.target, spread}
}
