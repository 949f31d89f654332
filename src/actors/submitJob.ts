import path from 'node:path'

import type {Address, Hex} from 'viem'

import {type BackendChoice, runtimeIdString, selectBackend} from '../ml/backend/index.js'
import {escrowFor} from '../ml/estimate/escrowFor.js'
import {estimateWork} from '../ml/estimate/estimateWork.js'
import {defaultWorkTable} from '../ml/estimate/workTable.js'
import {evaluateCheckpoint} from '../ml/evaluate/index.js'
import {type JobSpec, loadJobSpec, maxPriceWei, specHash as hashSpec} from '../ml/spec/index.js'
import {resolveFixturePath} from '../ml/spec/resolveFixturePath.js'
import {splitTaskSpecs} from '../ml/spec/splitTaskSpecs.js'
import {taskStepRange} from '../ml/train/index.js'
import type {ProofManifest} from '../pol/index.js'
import {connect, type ConnectOptions, requireSigner, type SignedConnection} from '../protocol/connect.js'
import {defaultMarketParams} from '../protocol/getProtocolParams.js'
import {pinPostedProfiles} from '../protocol/pinPostedProfiles.js'
import {submitTask} from '../protocol/submitTask.js'
import {type Task, type TaskStatus, verdictOf} from '../protocol/types.js'
import {readTaskLedgers} from '../protocol/taskLedger.js'
import {InvalidInputError} from '../errors/base.js'
import {fetchMappedDataset} from '../ml/data/mappedDataset.js'
import {prepareLocalData, publishDataset} from '../ml/data/publishedDataset.js'
import {prepareGivenWeights} from '../ml/model/givenWeights.js'
import {defaultKeysDir, keyFilePath, loadOrCreateSecret, readKeyFile, secretPath, writeKeyFile} from '../privacy/keyFile.js'
import {publishPrivateData} from '../privacy/publishPrivateData.js'
import {evaluateWrappedModel, type MappingKey} from '../privacy/wrapModel.js'
import {adoptTasks} from './adoptTasks.js'
import type {SubmittedTask} from './submittedTask.js'
import {followTasks} from './followTask.js'
import type {SettleReport} from './runRoleLoop.js'

export type {SubmittedTask} from './submittedTask.js'

export type SubmitJobOptions = {
  jobPath: string
  dryRun: boolean
  wait: boolean
  /** Submit this many copies of the job (default 1): each copy is its own task (or split tasks). */
  count?: number | undefined
  /** Overrides the spec's verification.segments: how many segments a verifier replays (a devnet scenario's `protocol.samples`). */
  segments?: number | undefined
  backend: BackendChoice
  connectOptions: ConnectOptions
  /** Pin the latest profiles these posters published for the job's model (src/protocol/pinPostedProfiles.ts). */
  thresholdsFrom?: readonly Address[] | undefined
  /** Follow these tasks, posted earlier for this job by this account, instead of posting it (src/actors/adoptTasks.ts). */
  taskIds?: readonly bigint[] | undefined
  /** A private job's secret and key files (docs/privacy.md); default .gensyn/keys. */
  keysDir?: string | undefined
  /** A private job: called once its mapped data set is in the store, before any task is posted. */
  onPrivateData?: (privacy: {mapping: string; data: Hex; bytes: number}) => void
  /** A job on its own data: called once its data set is in the store, before any task is posted. */
  onData?: (published: {data: Hex; bytes: number}) => void
  /** Called once per task as it lands on chain, before any waiting. */
  onSubmitted?: (task: SubmittedTask) => void
  /** Called with the phase index (0 submitted … 5 settled or expired) whenever a task moves. */
  onStatus?: (taskId: string, phase: number, status: TaskStatus) => void
  /** Called after each settle call the submitter made: settled, a dispute started, reopened, re-verified. */
  onSettle?: (report: SettleReport) => void
  /** Called after each expire call: `from` Claimed is a solver's timeout (the task goes back to the pool). */
  onExpired?: (taskId: string, from: TaskStatus) => void
  signal?: AbortSignal
}

export type SubmitJobResult = {
  dryRun: boolean
  name: string
  /** The job file's spec hash (a split job's tasks each have their own, in `tasks`). */
  specHash: Hex
  /** payment.maxPrice in wei per work unit. */
  maxPrice: string
  copies: number
  /** Work units and escrow of all tasks of all copies. */
  workUnits: string
  escrow: string
  tasks: SubmittedTask[]
  /** A job on its own data: the published data set's hash (dataset.data of its tasks) and size. */
  dataset?: {data: Hex; bytes: number}
  /** The profiles the job pins (verification.profiles): the only ones whose thresholds judge it in tolerance mode. */
  profiles?: Hex[]
  /** A private job (docs/privacy.md): its mapping, the mapped data set's hash and the key files written. */
  privacy?: {mapping: string; data?: Hex; keyFiles?: string[]; mappedBytes?: number}
  // The first copy's job, for scripts (`jq .testAccuracy`): its last task.
  taskId?: string
  status?: TaskStatus
  verdict?: 'accepted' | 'rejected' | 'none'
  testAccuracy?: number
  testLoss?: number
  /** A private job: the wrapped model (mapping + trained layers) on the raw test samples. */
  rawTestAccuracy?: number
  /** The runtime the delivered model was evaluated on. */
  evaluatedOn?: string
  finalCheckpoint?: Hex
  /** Totals over every task, with --wait. */
  paid?: string
  refunded?: string
}

const phaseOf: Record<TaskStatus, number> = {None: 0, Submitted: 0, Claimed: 1, Committed: 2, Verifying: 3, Verified: 4, Settled: 5, Expired: 5}

/**
 * The submitter's whole job: validate, split (docs/market.md, section 4: task i + 1 names task i as its
 * parent), publish and escrow every task, and (with `wait`) follow them all to settlement, report what each
 * paid and got back, and evaluate the delivered model.
 */
export async function submitJob(options: SubmitJobOptions): Promise<SubmitJobResult> {
  const loaded = await loadJobSpec(options.jobPath)
  let spec: JobSpec = options.segments === undefined ? loaded : {...loaded, verification: {...loaded.verification, segments: options.segments}}
  if (spec.privacy?.data !== undefined)
    throw new InvalidInputError(`${options.jobPath}: privacy.data: expected it absent in a job file (gensyn submit sets it to the mapped data set it stores)`)
  if ('source' in spec.dataset && spec.dataset.data !== undefined)
    throw new InvalidInputError(`${options.jobPath}: dataset.data: expected it absent in a job file (gensyn submit sets it to the data set it publishes)`)
  const baseDir = path.dirname(path.resolve(resolveFixturePath('jobs', options.jobPath)))
  // the job's own data is read and checked before anything is published or escrowed, in a dry run too
  if ('source' in spec.dataset) await prepareLocalData(spec, {baseDir})
  if (spec.model.initialWeights?.data !== undefined)
    throw new InvalidInputError(`${options.jobPath}: model.initialWeights.data: expected it absent in a job file (gensyn submit sets it to the weights it publishes)`)
  if (spec.model.initialWeights) await prepareGivenWeights(spec, {baseDir})
  const copies = options.count ?? 1
  let specs = splitTaskSpecs(spec)
  const summary = {dryRun: options.dryRun === true, name: spec.name, specHash: hashSpec(spec), maxPrice: maxPriceWei(spec).toString(), copies}
  const keysDir = options.keysDir ?? defaultKeysDir
  let privacy: SubmitJobResult['privacy'] = spec.privacy ? {mapping: spec.privacy.mapping} : undefined
  let dataset: SubmitJobResult['dataset']
  if (options.dryRun) {
    // No chain: the deployed defaults of the work table and the verifier fee (a chain may have others).
    const tasks = Array.from({length: copies}, (_, copy) => specs.map((taskSpec, index) => estimated(taskSpec, copy, index, specs.length))).flat()
    return {...summary, ...totals(tasks), tasks, ...(privacy ? {privacy} : {})}
  }

  const connection = requireSigner(await connect({...options.connectOptions, needsSigner: true}))
  if (options.thresholdsFrom?.length) {
    spec = (await pinPostedProfiles(connection, {spec, posters: options.thresholdsFrom})).spec
    specs = splitTaskSpecs(spec)
  }
  if ('source' in spec.dataset) {
    const published = await publishDataset(spec, {baseDir, store: connection.store})
    spec = published.spec
    specs = splitTaskSpecs(spec)
    options.onData?.({data: published.data, bytes: published.bytes})
    dataset = {data: published.data, bytes: published.bytes}
  }
  if (spec.model.initialWeights) {
    spec = await prepareGivenWeights(spec, {baseDir, store: connection.store})
    specs = splitTaskSpecs(spec)
  }
  let fromBlock = await connection.publicClient.getBlockNumber({cacheTime: 0})
  const tasks: SubmittedTask[] = []
  let mappingKey: (MappingKey & {blockNumber: bigint; blockHash: Hex; data: Hex}) | undefined
  if (spec.privacy && options.taskIds) {
    // A resumed private job: its tasks name the data set mapped when it was posted; the key file says which.
    const first = options.taskIds[0]
    const saved = await readKeyFile(keyFilePath(keysDir, String(first)))
    await fetchMappedDataset(connection.store, saved.data as Hex)
    mappingKey = {mapping: saved.mapping, key: saved.key as Hex, blockNumber: BigInt(saved.blockNumber), blockHash: saved.blockHash as Hex, data: saved.data as Hex}
  } else if (spec.privacy) {
    const block = await connection.publicClient.getBlock({blockTag: 'latest'})
    const secret = await loadOrCreateSecret(secretPath(keysDir))
    const published = await publishPrivateData({spec, secret, blockHash: block.hash, store: connection.store})
    mappingKey = {mapping: spec.privacy.mapping, key: published.key, blockNumber: block.number, blockHash: block.hash, data: published.data}
    privacy = {...privacy!, mappedBytes: published.bytes}
    options.onPrivateData?.({mapping: spec.privacy.mapping, data: published.data, bytes: published.bytes})
  }
  if (mappingKey) {
    spec = {...spec, privacy: {mapping: mappingKey.mapping, data: mappingKey.data}}
    specs = splitTaskSpecs(spec)
    privacy = {...privacy!, data: mappingKey.data}
  }
  if (options.taskIds) {
    // Posted earlier (a stopped submitter, a resumed devnet): follow them, post nothing.
    const adopted = await adoptTasks(connection, specs, copies, options.taskIds)
    fromBlock = adopted.fromBlock
    tasks.push(...adopted.tasks)
    for (const task of adopted.tasks) options.onSubmitted?.(task)
  } else {
    for (let copy = 0; copy < copies; copy++) {
      let parentId = 0n
      for (const [index, taskSpec] of specs.entries()) {
        const submitted = await submitTask(connection, taskSpec, {parentId})
        const task: SubmittedTask = {
          taskId: submitted.taskId.toString(),
          copy,
          index,
          tasks: specs.length,
          parentId: parentId.toString(),
          specHash: submitted.specHash,
          steps: taskStepRange(taskSpec),
          workUnits: submitted.workUnits.toString(),
          escrow: submitted.escrow.toString(),
          transactionHash: submitted.transaction.hash,
          gasUsed: submitted.transaction.gasUsed.toString(),
        }
        tasks.push(task)
        options.onSubmitted?.(task)
        parentId = submitted.taskId
      }
    }
  }
  if (mappingKey && !options.taskIds) {
    const taskIds = tasks.map((task) => task.taskId!)
    const keyFiles = taskIds.map((id) => keyFilePath(keysDir, id))
    const {mapping, key, blockNumber, blockHash, data} = mappingKey
    for (const file of keyFiles)
      await writeKeyFile(file, {format: 'gensyn-privacy-key/v1', mapping, key, blockNumber: blockNumber.toString(), blockHash, data, inputShape: spec.model.inputShape, taskIds})
    privacy = {...privacy!, keyFiles}
  }
  const profiles = spec.verification.profiles as Hex[] | undefined
  const result: SubmitJobResult = {
    ...summary,
    ...totals(tasks),
    tasks,
    taskId: tasks[specs.length - 1]?.taskId,
    ...(privacy ? {privacy} : {}),
    ...(dataset ? {dataset} : {}),
    ...(profiles?.length ? {profiles} : {}),
  }
  if (!options.wait) return result

  for (const task of tasks) options.onStatus?.(task.taskId!, 0, 'Submitted')
  const finals = await followTasks({
    connection,
    taskIds: tasks.map((task) => BigInt(task.taskId!)),
    signal: options.signal,
    onEvent: (event) => {
      if (event.type === 'status') options.onStatus?.(event.task.id.toString(), phaseOf[event.task.status], event.task.status)
      if (event.type === 'settle') options.onSettle?.(event)
      if (event.type === 'expired') options.onExpired?.(event.taskId.toString(), event.from)
    },
  })
  const ledgers = await readTaskLedgers(connection, fromBlock, finals.map((task) => task.id))
  let paid = 0n
  let refunded = 0n
  for (const [position, final] of finals.entries()) {
    const task = tasks[position]!
    const ledger = ledgers.get(final.id)
    task.status = final.status
    task.verdict = verdictOf(final)
    task.totalSteps = final.totalSteps.toString()
    if (final.price > 0n) task.price = final.price.toString()
    if (ledger) {
      task.solverPaid = ledger.solverPaid.toString()
      task.verifierPaid = ledger.verifierPaid.toString()
      task.tax = ledger.tax.toString()
      task.fromEscrow = ledger.fromEscrow.toString()
      task.refunded = ledger.refunded.toString()
      paid += ledger.solverPaid + ledger.verifierPaid + ledger.tax + ledger.fromEscrow
      refunded += ledger.refunded
    }
  }
  result.paid = paid.toString()
  result.refunded = refunded.toString()
  await evaluateDelivered(connection, options.backend, specs, tasks, finals, mappingKey)
  const first = tasks.filter((task) => task.copy === 0 && task.testAccuracy !== undefined).at(-1) ?? tasks[specs.length - 1]
  if (first) {
    result.taskId = first.taskId
    result.status = first.status
    result.verdict = first.verdict
    if (first.testAccuracy !== undefined) {
      result.testAccuracy = first.testAccuracy
      result.testLoss = first.testLoss
      if (first.rawTestAccuracy !== undefined) result.rawTestAccuracy = first.rawTestAccuracy
      result.finalCheckpoint = first.finalCheckpoint
      result.evaluatedOn = runtimeIdString(await selectBackend(options.backend))
    }
  }
  return result
}

/** What a task of the job would escrow at the deployed defaults (a dry run: no chain). */
function estimated(taskSpec: JobSpec, copy: number, index: number, count: number): SubmittedTask {
  const {workUnits} = estimateWork(taskSpec, defaultWorkTable)
  return {
    copy,
    index,
    tasks: count,
    parentId: '0',
    specHash: hashSpec(taskSpec),
    steps: taskStepRange(taskSpec),
    workUnits: workUnits.toString(),
    escrow: escrowFor(workUnits, maxPriceWei(taskSpec), defaultMarketParams.verifierFeeBps).toString(),
  }
}

function totals(tasks: readonly SubmittedTask[]): {workUnits: string; escrow: string} {
  const sum = (pick: (task: SubmittedTask) => string) => tasks.reduce((total, task) => total + BigInt(pick(task)), 0n).toString()
  return {workUnits: sum((task) => task.workUnits), escrow: sum((task) => task.escrow)}
}

/**
 * Each copy's model is the final checkpoint of its last settled task: the job's last task, or a split task
 * that stopped early (the tasks after it expire). Copies of one job train to the same checkpoint, so each
 * distinct checkpoint is evaluated once.
 */
async function evaluateDelivered(
  connection: SignedConnection,
  backend: BackendChoice,
  specs: readonly JobSpec[],
  tasks: SubmittedTask[],
  finals: readonly Task[],
  mappingKey: MappingKey | undefined,
): Promise<void> {
  const evaluationOf = new Map<Hex, {testAccuracy: number; testLoss: number}>()
  const rawAccuracyOf = new Map<Hex, number>()
  const copies = new Set(tasks.map((task) => task.copy))
  for (const copy of copies) {
    const chain = finals.flatMap((final, position) => (tasks[position]!.copy === copy ? [{final, task: tasks[position]!}] : []))
    const delivered = chain.filter(({final}) => final.status === 'Settled' && final.accepted).at(-1)
    if (!delivered) continue
    const {final, task} = delivered
    if (task.index !== specs.length - 1 && final.totalSteps === final.maxSteps) continue // a later task never ran
    const manifest = await connection.store.getJson<ProofManifest>(final.manifestHash)
    const last = manifest.checkpoints.at(-1)
    if (!last) continue
    let evaluation = evaluationOf.get(last.hash)
    if (evaluation === undefined) {
      evaluation = await evaluateCheckpoint({spec: specs[task.index]!, checkpoint: await connection.store.get(last.hash), backend})
      evaluationOf.set(last.hash, evaluation)
    }
    task.testAccuracy = evaluation.testAccuracy
    task.testLoss = evaluation.testLoss
    task.finalCheckpoint = last.hash
    if (mappingKey) {
      let raw = rawAccuracyOf.get(last.hash)
      if (raw === undefined) {
        const checkpoint = await connection.store.get(last.hash)
        raw = (await evaluateWrappedModel({spec: specs[task.index]!, checkpoint, key: mappingKey, backend})).testAccuracy
        rawAccuracyOf.set(last.hash, raw)
      }
      task.rawTestAccuracy = raw
    }
  }
}
