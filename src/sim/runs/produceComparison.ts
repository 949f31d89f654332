import path from 'node:path'

import type {Comparison} from './compareRuns.js'
import {loadRun} from './loadRun.js'
import {type ComparisonFiles, writeComparison} from './writeComparison.js'

export type ProduceComparisonParameters = {
  stateDir: string
  /** The two runs, as the user named them (id, unique prefix, `latest`, or a path). */
  runs: readonly [string, string]
  /** Where compare.md, compare.json and charts/ go; default `<stateDir>/compare/<A>-vs-<B>`. */
  out?: string | undefined
}

/** `gensyn devnet report --compare A B`: both runs' headline figures side by side, written with overlaid charts. */
export async function produceComparison({stateDir, runs, out}: ProduceComparisonParameters): Promise<{comparison: Comparison; files: ComparisonFiles}> {
  const a = await loadRun({stateDir, run: runs[0], field: '--compare (first RUN)'})
  const b = await loadRun({stateDir, run: runs[1], field: '--compare (second RUN)'})
  return writeComparison(a, b, out ?? path.join(stateDir, 'compare', `${a.id}-vs-${b.id}`))
}
