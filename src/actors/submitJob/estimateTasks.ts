import {escrowFor} from '../../ml/estimate/escrowFor.js'
import {estimateWork} from '../../ml/estimate/estimateWork.js'
import {defaultWorkTable} from '../../ml/estimate/workTable.js'
import {type JobSpec, maxPriceWei, specHash as hashSpec} from '../../ml/spec/index.js'
import {taskStepRange} from '../../ml/train/index.js'
import {defaultMarketParams} from '../../protocol/getProtocolParams.js'
import type {SubmittedTask} from './types.js'

/**
 * What every task of every copy would escrow, for a dry run: no chain, so the deployed defaults of the work
 * table and the verifier fee (a chain may have others).
 */
export function estimateTasks(specs: readonly JobSpec[], copies: number): SubmittedTask[] {
  return Array.from({length: copies}, (_, copy) => specs.map((taskSpec, position) => estimated(taskSpec, copy, position, specs.length))).flat()
}

function estimated(taskSpec: JobSpec, copy: number, position: number, count: number): SubmittedTask {
  const {workUnits} = estimateWork(taskSpec, defaultWorkTable)
  const shard = taskSpec.split?.shard
  return {
    copy,
    index: taskSpec.split?.index ?? position,
    ...(shard === undefined ? {} : {shard}),
    tasks: taskSpec.split?.shards === undefined ? count : taskSpec.split.tasks,
    parentId: '0',
    specHash: hashSpec(taskSpec),
    steps: taskStepRange(taskSpec),
    workUnits: workUnits.toString(),
    escrow: escrowFor(workUnits, maxPriceWei(taskSpec), defaultMarketParams.verifierFeeBps).toString(),
  }
}
