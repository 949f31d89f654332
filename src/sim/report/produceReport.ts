import {access} from 'node:fs/promises'
import path from 'node:path'

import {devnetConfigPath, readDevnetConfig} from '../../chain/devnetConfig.js'
import {InvalidInputError} from '../../errors/base.js'
import type {DevnetReport} from '../buildReport.js'
import {loadReportFile} from './loadReportFile.js'
import {rebuildReport} from './rebuildReport.js'
import {type ReportFiles, writeReportFiles} from './writeReportFiles.js'

export type ProduceReportOptions = {stateDir: string; out?: string | undefined}

export type ProducedReport = {
  /** `chain`: rebuilt from a running devnet; `file`: rendered again from <state-dir>/report.json. */
  source: 'chain' | 'file'
  report: DevnetReport
  files: ReportFiles
}

/**
 * `gensyn devnet report`: against a running devnet (devnet.json and a chain that answers) the report is
 * read from the chain now; otherwise the last run's report.json is rendered again. Either way report.json,
 * report.md and charts/ are written to `out` (default: the state dir).
 */
export async function produceReport(options: ProduceReportOptions): Promise<ProducedReport> {
  const out = options.out ?? options.stateDir
  if (await chainAnswers(options.stateDir)) {
    const report = await rebuildReport(options.stateDir)
    return {source: 'chain', report, files: await writeReportFiles(out, report)}
  }
  const file = path.join(options.stateDir, 'report.json')
  if (!(await exists(file))) {
    throw new InvalidInputError(`--state-dir: no running devnet and no report.json in ${options.stateDir} (start one with gensyn devnet up)`)
  }
  const report = await loadReportFile(file)
  return {source: 'file', report, files: await writeReportFiles(out, report)}
}

/** Whether devnet.json is there and its chain answers eth_blockNumber within two seconds. */
async function chainAnswers(stateDir: string): Promise<boolean> {
  if (!(await exists(devnetConfigPath(stateDir)))) return false
  try {
    const {rpcUrl} = await readDevnetConfig(stateDir)
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: []}),
      signal: AbortSignal.timeout(2000),
    })
    const body = (await response.json()) as {result?: unknown}
    return typeof body.result === 'string'
  } catch {
    return false
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file)
    return true
  } catch {
    return false
  }
}
