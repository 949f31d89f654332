import type {Hex} from 'viem'

import {InvalidInputError} from '../errors/base.js'
import {type JobSpec, maxPriceWei, specHash as hashSpec} from '../ml/spec/index.js'
import {splitTaskSpecs} from '../ml/spec/splitTaskSpecs.js'
import {defaultKeysDir} from '../privacy/keyFile.js'
import {connect, requireSigner} from '../protocol/connect.js'
import {estimateTasks} from './submitJob/estimateTasks.js'
import {evaluateDelivered} from './submitJob/evaluateDelivered.js'
import {followToSettlement} from './submitJob/followToSettlement.js'
import {mapPrivateData} from './submitJob/mapPrivateData.js'
import {postJobTasks} from './submitJob/postJobTasks.js'
import {publishJobInputs} from './submitJob/publishJobInputs.js'
import {readJobFile} from './submitJob/readJobFile.js'
import {runShardRounds} from './submitJob/runShardRounds.js'
import {summarizeShardRounds} from './submitJob/summarizeShardRounds.js'
import {summarizeFirstCopy} from './submitJob/summarizeFirstCopy.js'
import {totals} from './submitJob/totals.js'
import type {SubmitJobOptions, SubmitJobResult} from './submitJob/types.js'
import {writeMappingKeys} from './submitJob/writeMappingKeys.js'

export type {SubmitJobOptions, SubmitJobResult, SubmittedTask} from './submitJob/types.js'

/**
 * The submitter's whole job: validate, split (docs/market.md, section 4: task i + 1 names task i as its
 * parent), publish and escrow every task, and (with `wait`) follow them all to settlement, report what each
 * paid and got back, and evaluate the delivered model. Each step is a file in src/actors/submitJob/.
 */
export async function submitJob(options: SubmitJobOptions): Promise<SubmitJobResult> {
  const read = await readJobFile(options)
  let spec = read.spec
  const copies = options.count ?? 1
  const summary = {dryRun: options.dryRun === true, name: spec.name, specHash: hashSpec(spec), maxPrice: maxPriceWei(spec).toString(), copies}
  const keysDir = options.keysDir ?? defaultKeysDir
  let privacy: SubmitJobResult['privacy'] = spec.privacy ? {mapping: spec.privacy.mapping} : undefined
  if (options.dryRun) {
    const tasks = estimateTasks(splitTaskSpecs(spec), copies)
    return {...summary, ...totals(tasks), tasks, ...(privacy ? {privacy} : {})}
  }

  if (spec.split?.shards !== undefined) checkShardedOptions(spec, options)
  const began = performance.now()
  const connection = requireSigner(await connect({...options.connectOptions, needsSigner: true}))
  // Pinned profiles, the job's own data set and its given weights go to the store; the spec names them.
  const inputs = await publishJobInputs(connection, spec, read.baseDir, options)
  spec = inputs.spec
  const fromBlock = await connection.publicClient.getBlockNumber()
  // A private job's data set is mapped (or, resumed, found again) before any task names it.
  const mapped = await mapPrivateData(connection, spec, keysDir, options)
  if (mapped) {
    spec = {...spec, privacy: {mapping: mapped.mappingKey.mapping, data: mapped.mappingKey.data}}
    privacy = {...privacy!, ...(mapped.mappedBytes === undefined ? {} : {mappedBytes: mapped.mappedBytes}), data: mapped.mappingKey.data}
  }
  const extras = {...(inputs.dataset ? {dataset: inputs.dataset} : {}), ...(spec.verification.profiles?.length ? {profiles: spec.verification.profiles as Hex[]} : {})}
  if (spec.split?.shards !== undefined) {
    const rounds = await runShardRounds(connection, spec, options)
    const result: SubmitJobResult = {...summary, ...totals(rounds.tasks), tasks: rounds.tasks, ...extras}
    await summarizeShardRounds(result, spec, rounds, options.backend)
    return {...result, wallSeconds: (performance.now() - began) / 1000}
  }
  const specs = splitTaskSpecs(spec)
  const posted = await postJobTasks(connection, specs, copies, fromBlock, options)
  const {tasks} = posted
  if (mapped && !options.taskIds) privacy = {...privacy!, keyFiles: await writeMappingKeys(keysDir, mapped.mappingKey, tasks, spec.model.inputShape)}
  const result: SubmitJobResult = {...summary, ...totals(tasks), tasks, taskId: tasks[specs.length - 1]?.taskId, ...extras, ...(privacy ? {privacy} : {})}
  if (!options.wait) return result

  const {finals, paid, refunded} = await followToSettlement(connection, tasks, posted.fromBlock, options)
  result.paid = paid.toString()
  result.refunded = refunded.toString()
  await evaluateDelivered(connection, options.backend, specs, tasks, finals, mapped?.mappingKey)
  await summarizeFirstCopy(result, tasks, specs.length, options.backend)
  return {...result, wallSeconds: (performance.now() - began) / 1000}
}

/** A parallel split posts each round once the one before has settled: the submitter must stay, and post it all (a restarted one adopts what it had posted). */
function checkShardedOptions(spec: JobSpec, options: SubmitJobOptions): void {
  if (spec.privacy) throw new InvalidInputError('privacy: expected no privacy mapping in a parallel split (split.shards): not supported yet', {docsPath: 'privacy.md'})
  if (!options.wait) throw new InvalidInputError('split.shards: a parallel split needs --wait (each round is posted once the one before has settled)', {docsPath: 'market.md'})
  if ((options.count ?? 1) !== 1) throw new InvalidInputError(`--count: expected 1 for a parallel split (split.shards), got ${options.count}`)
  const {tasks: rounds = 1, shards = 1} = spec.split ?? {}
  if (options.taskIds && options.taskIds.length > rounds * shards)
    throw new InvalidInputError(`--task-ids: expected at most ${rounds * shards} task ids (${rounds} rounds x ${shards} shards of the job), got ${options.taskIds.length}`)
}
