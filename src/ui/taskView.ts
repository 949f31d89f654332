import {formatEther} from 'viem'

import {type Task, verdictOf} from '../protocol/types.js'

/** A task as plain JSON: amounts in wei strings, plus the derived verdict. */
export function taskToJson(task: Task): Record<string, unknown> {
  return {
    id: task.id.toString(),
    status: task.status,
    verdict: verdictOf(task),
    submitter: task.submitter,
    solver: task.solver,
    verifier: task.verifier,
    specHash: task.specHash,
    escrow: task.escrow.toString(),
    solverReward: task.solverReward.toString(),
    verifierReward: task.verifierReward.toString(),
    deadline: Number(task.deadline),
    submittedAt: Number(task.submittedAt),
    commitBlock: Number(task.commitBlock),
    checkpointCount: task.checkpointCount,
    proofRoot: task.proofRoot,
    manifestHash: task.manifestHash,
    randomness: task.randomness,
    reportHash: task.reportHash,
    attempts: task.attempts,
    distance: task.distance.toString(),
  }
}

export function taskRow(task: Task): string[] {
  return [task.id.toString(), task.status, verdictOf(task), shortAddress(task.submitter), shortAddress(task.solver), shortAddress(task.verifier), formatEther(task.escrow)]
}

export function renderTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)))
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()
  return [line(header), ...rows.map(line)].join('\n')
}

function shortAddress(address: string): string {
  return /^0x0{40}$/.test(address) ? '-' : `${address.slice(0, 6)}…${address.slice(-4)}`
}
